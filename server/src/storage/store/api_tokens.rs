//! Personal access tokens: who a request's `Authorization: Bearer` signs in.

use super::Store;
use crate::records::Viewer;
use crate::storage::StorageError;

/// A token as listed (never its secret).
pub use app::api::TokenInfo;

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
        /// A new token for `user_id`, unless they have `cap` already: false then. The
        /// count and the insert are one step the database serializes, so requests at once
        /// never take a person past the cap.
        fn create_api_token(&self, id: &str, user_id: &str, name: &str, digest: &str, now: &str, cap: i64) -> Result<bool, StorageError>;
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
