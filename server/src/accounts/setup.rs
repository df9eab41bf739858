//! The first account. A fresh install is open to no one: at the first start with no users
//! the server makes the admin from `ONCENOTE_ADMIN_USERNAME`/`ONCENOTE_ADMIN_PASSWORD`
//! (unattended installs), or prints a one-time setup link. The first admin is made so by
//! the database (one `setup` row), so two setups at once — two requests, two server
//! processes — cannot both win. The notes from before accounts go to that admin.

use super::{NewUser, password, tokens, valid_password, valid_username};
use crate::config::Config;
use crate::error::ApiError;
use crate::storage::Store;
use crate::timestamp;

/// At start: nothing to do once the admin exists; else make them, or print a setup link.
pub async fn on_start(store: &Store, config: &Config, base_url: &str) -> anyhow::Result<()> {
    if store.accounts().setup_done().await? {
        return Ok(());
    }
    if let Some((username, password)) = &config.admin {
        let user = new_user(username, password, true).await?;
        if store.accounts().create_first_admin(&user).await? {
            tracing::info!(username = %user.username, "made the first admin from ONCENOTE_ADMIN_USERNAME");
        }
        return Ok(());
    }
    let token = tokens::new_token();
    store
        .accounts()
        .add_setup_token(
            &tokens::digest(&token),
            &timestamp::format(timestamp::now()),
        )
        .await?;
    let base = config.public_url.as_deref().unwrap_or(base_url);
    tracing::warn!(
        "no account exists yet: open {base}/setup?token={token} to create the admin account \
         (the link works once; it is printed anew at each start until then)"
    );
    Ok(())
}

/// A checked, hashed new account.
pub async fn new_user(username: &str, password: &str, admin: bool) -> Result<NewUser, ApiError> {
    let username = valid_username(username)?;
    valid_password(password)?;
    Ok(NewUser {
        id: uuid::Uuid::new_v4().to_string(),
        username,
        password_hash: password::hash(password.to_owned()).await?,
        admin,
        created_at: timestamp::format(timestamp::now()),
    })
}

/// Completes the setup from a setup link: the first admin. Returns their id.
pub async fn complete(
    store: &Store,
    token: &str,
    username: &str,
    password: &str,
) -> Result<String, ApiError> {
    if store.accounts().setup_done().await? {
        return Err(ApiError::SetupDone);
    }
    if !store
        .accounts()
        .setup_token_exists(&tokens::digest(token))
        .await?
    {
        return Err(ApiError::SetupLinkInvalid);
    }
    let user = new_user(username, password, true).await?;
    if !store.accounts().create_first_admin(&user).await? {
        return Err(ApiError::SetupDone);
    }
    tracing::info!(username = %user.username, "made the first admin from the setup link");
    Ok(user.id)
}
