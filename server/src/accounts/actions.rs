//! What the account routes do, shared by the JSON API (`routes`) and the pages' forms
//! (`forms`): sign in, accept an invitation, sign up, change a password, invite.

use std::net::IpAddr;
use std::time::Duration;

use super::{Viewer, limits, password, setup, tokens, valid_password};
use crate::error::ApiError;
use crate::state::AppState;
use crate::timestamp;

/// How long an invitation link works.
pub const INVITATION_LIFETIME: Duration = Duration::from_secs(7 * 86_400);

/// Checks a username and password, within the sign-in limits. Returns the user's id.
/// A wrong password and an unknown user get the same answer, after the same work.
pub async fn sign_in(
    state: &AppState,
    username: &str,
    given_password: &str,
    client: IpAddr,
) -> Result<String, ApiError> {
    let buckets = limits::buckets(username, client);
    let now = timestamp::now();
    limits::check(&state.store, &buckets, now).await?;
    let found = state.store.user_by_name(username.trim()).await?;
    let stored = found.as_ref().map(|(_, hash)| hash.clone());
    let matches = password::verify(given_password.to_owned(), stored).await?;
    match found {
        Some((user, _)) if matches && !user.disabled => {
            state.store.clear_limit(&buckets[0].0).await?;
            tracing::info!(username = %user.username, "signed in");
            Ok(user.id)
        }
        _ => {
            limits::fail(&state.store, &state.config, &buckets, now).await?;
            limits::check(&state.store, &buckets, timestamp::now()).await?;
            Err(ApiError::InvalidCredentials)
        }
    }
}

/// Makes an account with an invitation (once). Returns the new user's id.
pub async fn accept_invitation(
    state: &AppState,
    token: &str,
    username: &str,
    password: &str,
) -> Result<String, ApiError> {
    let user = setup::new_user(username, password, false).await?;
    if !state
        .store
        .accept_invitation(&tokens::digest(token), &user)
        .await?
    {
        return Err(ApiError::InvitationGone);
    }
    tracing::info!(username = %user.username, "account made from an invitation");
    Ok(user.id)
}

/// Makes an account without an invitation, where signup is open. Returns its id.
pub async fn sign_up(state: &AppState, username: &str, password: &str) -> Result<String, ApiError> {
    if !state.config.signup_open {
        return Err(ApiError::SignupClosed);
    }
    let user = setup::new_user(username, password, false).await?;
    state.store.create_user(&user).await?;
    tracing::info!(username = %user.username, "account made by signing up");
    Ok(user.id)
}

/// Changes the viewer's password; every session of theirs ends (the caller starts a new
/// one for the request at hand).
pub async fn change_password(
    state: &AppState,
    viewer: &Viewer,
    current: &str,
    new: &str,
) -> Result<(), ApiError> {
    valid_password(new)?;
    let stored = state
        .store
        .user_by_id(&viewer.user_id)
        .await?
        .map(|(_, hash)| hash);
    if !password::verify(current.to_owned(), stored).await? {
        return Err(ApiError::WrongPassword);
    }
    let hash = password::hash(new.to_owned()).await?;
    state
        .store
        .set_password(&viewer.user_id, &hash, &timestamp::format(timestamp::now()))
        .await?;
    tracing::info!(username = %viewer.username, "password changed; every other session ended");
    Ok(())
}

/// A new single-use invitation: `(token, expires_at)`.
pub async fn invite(state: &AppState, admin: &Viewer) -> Result<(String, String), ApiError> {
    let token = tokens::new_token();
    let now = timestamp::now();
    let expires_at = timestamp::format(timestamp::after(now, INVITATION_LIFETIME));
    state
        .store
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
