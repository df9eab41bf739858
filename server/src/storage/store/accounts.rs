//! The accounts: users, the first admin and its setup links, invitations.

use super::Store;
use crate::records::{NewUser, User};
use crate::storage::StorageError;

/// The accounts of a [`Store`].
pub struct Accounts<'a>(&'a Store);

impl Store {
    /// Users, the first admin and its setup links, invitations.
    pub fn accounts(&self) -> Accounts<'_> {
        Accounts(self)
    }
}

delegate! {
    Accounts {
        /// How many accounts exist.
        fn user_count(&self) -> Result<i64, StorageError>;
        /// Whether the first admin exists.
        fn setup_done(&self) -> Result<bool, StorageError>;
        /// Makes `user` the first admin unless another setup won (false then).
        fn create_first_admin(&self, user: &NewUser) -> Result<bool, StorageError>;
        /// Keeps a one-time setup link's token (as its digest); the links printed at earlier
        /// starts stop working.
        fn add_setup_token(&self, token_hash: &str, now: &str) -> Result<(), StorageError>;
        /// Whether a setup link is one this server printed.
        fn setup_token_exists(&self, token_hash: &str) -> Result<bool, StorageError>;
        /// A new account (409 if the name is taken).
        fn create_user(&self, user: &NewUser) -> Result<(), StorageError>;
        /// A user and their password hash, by name (any case).
        fn user_by_name(&self, username: &str) -> Result<Option<(User, String)>, StorageError>;
        /// A user and their password hash, by id.
        fn user_by_id(&self, id: &str) -> Result<Option<(User, String)>, StorageError>;
        /// Every account.
        fn list_users(&self) -> Result<Vec<User>, StorageError>;
        /// Disables (ending every session) or enables an account; false if there is none.
        fn set_disabled(&self, id: &str, disabled_at: Option<&str>) -> Result<bool, StorageError>;
        /// A new password: every session of the user ends, and so does every API token of
        /// theirs that another session than `keep` (the one changing it) made — a stolen
        /// session's tokens go with it. The tokens `keep` made (or was handed) stay, handed
        /// on to `successor`, the session the change starts: a later change from that
        /// session keeps them again, one from anywhere else ends them. A token of unknown
        /// origin (made before tokens recorded their session) ends.
        fn set_password(&self, id: &str, hash: &str, now: &str, keep: Option<&str>, successor: &str) -> Result<(), StorageError>;
        /// A new invitation.
        fn create_invitation(&self, token_hash: &str, created_by: &str, now: &str, expires_at: &str) -> Result<(), StorageError>;
        /// Uses an invitation once to make `user`; false if it was used or expired.
        fn accept_invitation(&self, token_hash: &str, user: &NewUser) -> Result<bool, StorageError>;
        /// Whether an invitation can still be used (not used, not expired at `now`).
        fn invitation_open(&self, token_hash: &str, now: &str) -> Result<bool, StorageError>;
    }
}
