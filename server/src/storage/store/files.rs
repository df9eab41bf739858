//! The files people put in their notes (`storage::files` says where the bytes live and
//! why).

use std::path::Path;

use super::Store;
use crate::records::file_cursor::FileCursor;
use crate::storage::StorageError;
use crate::storage::files::{FileInsert, FilePage, StoredFile};

/// The files of a [`Store`].
pub struct Files<'a>(&'a Store);

impl Store {
    /// The files in people's notes.
    pub fn files(&self) -> Files<'_> {
        Files(self)
    }
}

delegate! {
    Files {
        /// Stores the upload in `spool` (already hashed to `sha256` and counted to `size`
        /// bytes) as `scope`'s file, in one transaction: its row, its chunks and its charge
        /// (`app::api::quota_charge`: its size, at least 4 KiB) added to the person's usage — unless that would pass `quota` (`OverQuota`,
        /// nothing written) or the person has the file already (`AlreadyThere`, its
        /// `last_seen_at` set to `now`; also when another upload of it finished first).
        #[allow(clippy::too_many_arguments)]
        fn insert_file(&self, scope: &str, sha256: &str, size: u64, content_type: &str, spool: &Path, quota: u64, now: &str) -> Result<FileInsert, StorageError>;
        /// The person's file, if they have it, marked seen at `now` (its `last_seen_at`): an
        /// upload answered from what is stored, without reading its body, still counts as
        /// an upload for the sweep's grace period.
        fn touch_file(&self, scope: &str, sha256: &str, now: &str) -> Result<Option<StoredFile>, StorageError>;
        /// The person's file, if they have it.
        fn file(&self, scope: &str, sha256: &str) -> Result<Option<StoredFile>, StorageError>;
        /// The file's chunks `first..=last`, in order (fewer if the file has fewer).
        fn file_chunks(&self, scope: &str, sha256: &str, first: u32, last: u32) -> Result<Vec<Vec<u8>>, StorageError>;
        /// What the person's files cost of the quota, read without a lock: for a cheap refusal
        /// before an upload or an import does its work (the insert checks again).
        fn used_bytes(&self, scope: &str) -> Result<u64, StorageError>;
        /// Every file of the person, newest first, and what they cost of the quota: for an
        /// export and an import's check, never for an answer (its size grows with them).
        fn files_of(&self, scope: &str) -> Result<(Vec<StoredFile>, u64), StorageError>;
        /// A page of at most `limit` of the person's files, newest first (then by name from
        /// the last), after `after`; with their usage and count, read together.
        fn file_page(&self, scope: &str, limit: u32, after: Option<&FileCursor>) -> Result<FilePage, StorageError>;
    }
}
