//! What the account routes do, shared by the JSON API (`routes`) and the pages' forms
//! (`forms`): sign in, accept an invitation, sign up, change a password, invite.

use std::net::IpAddr;
use std::time::Duration;

use super::{USERNAME_MAX, Viewer, limits, password, setup, tokens, valid_password};
use crate::error::ApiError;
use crate::state::AppState;
use crate::timestamp;

/// How long an invitation link works.
pub const INVITATION_LIFETIME: Duration = Duration::from_secs(7 * 86_400);

/// Checks a username and password, within the sign-in limits. Returns the user's id.
/// A wrong password and an unknown user get the same answer, after the same work; a name
/// no account can have is refused before any work.
pub async fn sign_in(
    state: &AppState,
    username: &str,
    given_password: &str,
    client: IpAddr,
) -> Result<String, ApiError> {
    let username = plausible_username(username)?;
    let attempt = limits::begin(
        &state.store,
        &state.config,
        limits::sign_in_buckets(username, client),
    )
    .await?;
    let checked = async {
        let found = state.store.accounts().user_by_name(username).await?;
        let stored = found.as_ref().map(|(_, hash)| hash.clone());
        let matches = password::verify(given_password.to_owned(), stored).await?;
        Ok::<_, ApiError>((found, matches))
    };
    match checked.await {
        Ok((Some((user, _)), true)) if !user.disabled => {
            attempt.succeeded().await?;
            tracing::info!(username = %user.username, "signed in");
            Ok(user.id)
        }
        Ok(_) => Err(attempt.failed(ApiError::InvalidCredentials).await),
        Err(error) => {
            attempt.not_checked().await?;
            Err(error)
        }
    }
}

/// A username as typed at sign-in, trimmed, if an account could have it: the limit is
/// checked before anything is counted, hashed or stored.
fn plausible_username(username: &str) -> Result<&str, ApiError> {
    let username = username.trim();
    if username.is_empty() || username.chars().count() > USERNAME_MAX {
        return Err(ApiError::ValidationFailed(format!(
            "a username has 1 to {USERNAME_MAX} characters"
        )));
    }
    Ok(username)
}

/// Makes an account with an invitation (once). Returns the new user's id. The link is
/// looked up before the password is hashed, and links tried from one address are limited
/// like sign-ins, so bogus links cost the server a lookup and no more.
pub async fn accept_invitation(
    state: &AppState,
    token: &str,
    username: &str,
    password: &str,
    client: IpAddr,
) -> Result<String, ApiError> {
    let digest = tokens::digest(token);
    let attempt = limits::begin(
        &state.store,
        &state.config,
        limits::new_account_buckets(client),
    )
    .await?;
    let now = timestamp::format(timestamp::now());
    match state.store.accounts().invitation_open(&digest, &now).await {
        Ok(true) => attempt.succeeded().await?,
        Ok(false) => return Err(attempt.failed(ApiError::InvitationGone).await),
        Err(error) => {
            attempt.not_checked().await?;
            return Err(error.into());
        }
    }
    let user = setup::new_user(username, password, false).await?;
    if !state
        .store
        .accounts()
        .accept_invitation(&digest, &user)
        .await?
    {
        return Err(ApiError::InvitationGone);
    }
    tracing::info!(username = %user.username, "account made from an invitation");
    Ok(user.id)
}

/// Makes an account without an invitation, where signup is open. Returns its id. One
/// address may make as many accounts in a window as it may fail sign-ins.
pub async fn sign_up(
    state: &AppState,
    username: &str,
    password: &str,
    client: IpAddr,
) -> Result<String, ApiError> {
    if !state.config.signup_open {
        return Err(ApiError::SignupClosed);
    }
    let attempt = limits::begin(
        &state.store,
        &state.config,
        limits::new_account_buckets(client),
    )
    .await?;
    let user = match setup::new_user(username, password, false).await {
        Ok(user) => user,
        Err(error) => {
            attempt.not_checked().await?;
            return Err(error);
        }
    };
    state.store.accounts().create_user(&user).await?;
    attempt.kept().await;
    tracing::info!(username = %user.username, "account made by signing up");
    Ok(user.id)
}

/// Changes the viewer's password; every session of theirs ends, and every API token
/// another session made: a session stolen from the person minted its tokens without the
/// password, and this is how the person takes them back. The tokens this session made (or
/// was handed by an earlier change) stay, handed on to the session the change starts for
/// the request at hand: its token is returned, for the caller to start it
/// (`session::start_with`). PROTOCOL.md, "API tokens".
pub async fn change_password(
    state: &AppState,
    viewer: &Viewer,
    current: &str,
    new: &str,
) -> Result<String, ApiError> {
    valid_password(new)?;
    let attempt = limits::begin(
        &state.store,
        &state.config,
        limits::password_check_buckets(&viewer.user_id),
    )
    .await?;
    let checked = async {
        let stored = state
            .store
            .accounts()
            .user_by_id(&viewer.user_id)
            .await?
            .map(|(_, hash)| hash);
        password::verify(current.to_owned(), stored).await
    };
    match checked.await {
        Ok(true) => attempt.succeeded().await?,
        Ok(false) => return Err(attempt.failed(ApiError::WrongPassword).await),
        Err(error) => {
            attempt.not_checked().await?;
            return Err(error);
        }
    }
    let hash = password::hash(new.to_owned()).await?;
    let successor = tokens::new_token();
    state
        .store
        .accounts()
        .set_password(
            &viewer.user_id,
            &hash,
            &timestamp::format(timestamp::now()),
            viewer.session(),
            &tokens::digest(&successor),
        )
        .await?;
    // Live streams opened with a session or a token that ended now close.
    super::session::sessions_ended(&state.store, &viewer.user_id).await;
    tracing::info!(username = %viewer.username, "password changed; every other session, and the tokens they made, ended");
    Ok(successor)
}

/// A new single-use invitation: `(token, expires_at)`.
pub async fn invite(state: &AppState, admin: &Viewer) -> Result<(String, String), ApiError> {
    let token = tokens::new_token();
    let now = timestamp::now();
    let expires_at = timestamp::format(timestamp::after(now, INVITATION_LIFETIME));
    state
        .store
        .accounts()
        .create_invitation(
            &tokens::digest(&token),
            &admin.user_id,
            &timestamp::format(now),
            &expires_at,
        )
        .await?;
    Ok((token, expires_at))
}

/// The link an invitation is opened with.
pub fn invitation_url(state: &AppState, base: &str, token: &str) -> String {
    format!("{}/invite/{token}", site_address(&state.config, base))
}

/// Where people reach this server: `ONCENOTE_PUBLIC_URL`, or else `base` (the scheme and
/// host a request came with).
pub fn site_address(config: &crate::config::Config, base: &str) -> String {
    config.public_url.as_deref().unwrap_or(base).to_owned()
}
