//! The background sweeps: what has outlived its time, deleted.

use super::Store;
use crate::storage::StorageError;

/// The sweeps of a [`Store`].
pub struct Sweeps<'a>(&'a Store);

impl Store {
    /// The background sweeps (see `sweeper`).
    pub fn sweeps(&self) -> Sweeps<'_> {
        Sweeps(self)
    }
}

delegate! {
    Sweeps {
        /// Deletes for good the notes that went to the trash before `cutoff`.
        fn empty_trash_before(&self, cutoff: &str, now: &str) -> Result<u64, StorageError>;
        /// Deletes expired idempotency rows; returns how many went.
        fn sweep_expired(&self, now: &str) -> Result<u64, StorageError>;
        /// Deletes what deletes for good before `cutoff` left behind (tombstones and the keys
        /// of the notes they deleted).
        fn sweep_tombstones(&self, cutoff: &str) -> Result<u64, StorageError>;
        /// Deletes the files no note refers to that were last uploaded, or last lost a
        /// note's reference, before `cutoff` (with their bytes), and takes their sizes off
        /// their people's usage in the same transactions. Returns how many went.
        fn sweep_files(&self, cutoff: &str) -> Result<u64, StorageError>;
        /// Deletes expired sessions.
        fn sweep_sessions(&self, now: &str) -> Result<u64, StorageError>;
        /// Deletes the buckets whose window began before `cutoff` and which are not locked
        /// at `now`.
        fn sweep_limits(&self, now: &str, cutoff: &str) -> Result<u64, StorageError>;
    }
}
