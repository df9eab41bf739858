//! Personal access tokens: who a request's `Authorization: Bearer` signs in.

use super::Store;
use crate::records::Viewer;
use crate::storage::StorageError;

/// A token as listed (never its secret).
pub use app::api::TokenInfo;

/// What came of asking for a new token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenMinted {
    /// The token is stored.
    Made,
    /// The person holds as many tokens as they may already.
    TooMany,
    /// The session that asked ended (or expired, or its person was disabled) before the
    /// token was stored: nothing is.
    SessionEnded,
}

/// A token to store: its row, and the session (by its digest) that asked for it.
#[derive(Debug, Clone, Copy)]
pub struct NewApiToken<'a> {
    pub id: &'a str,
    pub user_id: &'a str,
    /// The SHA-256 of the session token of the request that asks for it; the row keeps it
    /// (`made_by`), so a password change can tell this session's tokens from others'.
    pub session: &'a str,
    pub name: &'a str,
    /// The SHA-256 of the token itself (the token is never stored).
    pub digest: &'a str,
    pub created_at: &'a str,
}

/// The personal access tokens of a [`Store`].
pub struct ApiTokens<'a>(&'a Store);

impl Store {
    /// Personal access tokens: made and revoked on the account page, read on each
    /// request that brings one.
    pub fn api_tokens(&self) -> ApiTokens<'_> {
        ApiTokens(self)
    }
}

delegate! {
    ApiTokens {
        /// A new token for `token.user_id`, asked for by their session `token.session`,
        /// unless they have `cap` already or that session no longer stands (ended, expired,
        /// its person disabled). The checks and the insert are one step the database
        /// serializes, so requests at once never take a person past the cap, and a session
        /// ended while the request's body was on its way mints nothing.
        fn create_api_token(&self, token: NewApiToken<'_>, cap: i64) -> Result<TokenMinted, StorageError>;
        /// The person's tokens, newest first.
        fn list_api_tokens(&self, user_id: &str) -> Result<Vec<TokenInfo>, StorageError>;
        /// Revokes one of the person's tokens; false if they have none with this id.
        fn delete_api_token(&self, user_id: &str, id: &str) -> Result<bool, StorageError>;
        /// The enabled person a token (by its digest) signs in, and when it was last used.
        fn token_viewer(&self, digest: &str) -> Result<Option<(Viewer, Option<String>)>, StorageError>;
        /// Notes that a token was used now, unless that was noted after `since` already.
        fn touch_api_token(&self, id: &str, now: &str, since: &str) -> Result<(), StorageError>;
    }
}
