//! Sessions: who a request's cookie signs in.

use super::Store;
use crate::records::Viewer;
use crate::storage::StorageError;

/// The sessions of a [`Store`].
pub struct Sessions<'a>(&'a Store);

impl Store {
    /// Sessions: made at sign-in, read and kept alive on each request, ended at sign-out.
    pub fn sessions(&self) -> Sessions<'_> {
        Sessions(self)
    }
}

delegate! {
    Sessions {
        /// A new session.
        fn create_session(&self, token_hash: &str, user_id: &str, now: &str, expires_at: &str) -> Result<(), StorageError>;
        /// The person a live session belongs to, and when it was last seen.
        fn session_viewer(&self, token_hash: &str, now: &str) -> Result<Option<(Viewer, String)>, StorageError>;
        /// Keeps a session alive.
        fn touch_session(&self, token_hash: &str, now: &str, expires_at: &str) -> Result<(), StorageError>;
        /// Ends a session.
        fn delete_session(&self, token_hash: &str) -> Result<(), StorageError>;
    }
}
