//! Accounts: each person's notes are theirs alone.
//!
//! - `password`: Argon2id hashes, verified off the async runtime, with a dummy verify for
//!   unknown users so timing does not tell who exists.
//! - `tokens`: the random tokens of sessions, invitations and setup links, stored only as
//!   their SHA-256.
//! - `session`: the session cookie, the signed-in person of a request, and the guards that
//!   refuse requests without one.
//! - `bearer`: the same for a personal access token (`Authorization: Bearer`), and the
//!   routes a token opens; `api_tokens`: making, listing and revoking them.
//! - `limits`: sign-in attempts per account and per client address, counted in the
//!   database so the limits hold across server processes.
//! - `setup`: the first admin (from the environment, or a one-time link printed at start).
//! - `routes` (the JSON API), `forms` (the same for pages, without JavaScript).
//!
//! A person's export and import are in `notes::transfer`.

pub mod actions;
pub mod api_tokens;
pub mod bearer;
pub mod forms;
pub mod gate;
pub mod limits;
pub mod password;
pub mod routes;
pub mod session;
pub mod setup;
pub mod tokens;

use crate::error::ApiError;

pub use crate::records::{Credential, NewUser, User, Viewer};

/// Longest username, in characters.
pub const USERNAME_MAX: usize = 64;
/// Shortest and longest password, in characters.
const PASSWORD_MIN: usize = 8;
const PASSWORD_MAX: usize = 1024;

/// A username: 1–64 letters, digits, `.`, `_` or `-` (compared without case).
pub fn valid_username(name: &str) -> Result<String, ApiError> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > USERNAME_MAX {
        return Err(ApiError::ValidationFailed(format!(
            "a username has 1 to {USERNAME_MAX} characters"
        )));
    }
    if !name
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '-'))
    {
        return Err(ApiError::ValidationFailed(
            "a username holds letters, digits, '.', '_' and '-' only".into(),
        ));
    }
    Ok(name.to_owned())
}

/// A new password: 8–1024 characters.
pub fn valid_password(password: &str) -> Result<(), ApiError> {
    let chars = password.chars().count();
    if chars < PASSWORD_MIN {
        return Err(ApiError::ValidationFailed(format!(
            "a password has at least {PASSWORD_MIN} characters"
        )));
    }
    if chars > PASSWORD_MAX {
        return Err(ApiError::ValidationFailed(format!(
            "a password has at most {PASSWORD_MAX} characters"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames_are_short_and_plain() {
        assert_eq!(valid_username(" ada.l ").unwrap(), "ada.l");
        assert!(valid_username("émile_2").is_ok());
        assert!(valid_username("").is_err());
        assert!(valid_username("a b").is_err());
        assert!(valid_username("a/b").is_err());
        assert!(valid_username(&"a".repeat(65)).is_err());
    }

    #[test]
    fn passwords_have_at_least_eight_characters() {
        assert!(valid_password("1234567").is_err());
        assert!(valid_password("12345678").is_ok());
        assert!(valid_password(&"p".repeat(1025)).is_err());
    }
}
