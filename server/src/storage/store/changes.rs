//! The change feed: pages of a person's changes, every person's head, compaction, and the
//! signal the live streams follow.

use tokio::sync::broadcast;

use super::Store;
use crate::storage::StorageError;
use crate::storage::feed::{EventsPage, FeedPage, Moved};

/// The change feed of a [`Store`]. (Changes are written by the writes themselves, inside
/// their transactions: `storage::NoteWrites`.)
pub struct Changes<'a>(&'a Store);

impl Store {
    /// The change feed.
    pub fn changes(&self) -> Changes<'_> {
        Changes(self)
    }
}

delegate! {
    Changes {
        /// Up to `limit` + 1 changes of `scope` after `since`, with the feed's bounds, in
        /// one snapshot.
        fn changes_since(&self, scope: &str, since: i64, limit: u32) -> Result<FeedPage, StorageError>;
        /// Up to `limit` + 1 of `scope`'s changes after `since` as the live streams send
        /// them (no notes), with the feed's bounds, in one statement.
        fn events_since(&self, scope: &str, since: i64, limit: u32) -> Result<EventsPage, StorageError>;
        /// The person's latest seq (0 before their first write).
        fn latest_seq(&self, scope: &str) -> Result<i64, StorageError>;
        /// Every person's latest seq (the streams' backstop poll).
        fn feed_heads(&self) -> Result<Vec<(String, i64)>, StorageError>;
        /// Drops purges changed before `cutoff` from the feed.
        fn compact_changes(&self, cutoff: &str) -> Result<u64, StorageError>;
        /// Tells every process's streams of `scope` to check their session now (one of
        /// theirs ended): in this process at once, on PostgreSQL through `NOTIFY` to every
        /// replica.
        fn sessions_ended(&self, scope: &str) -> Result<(), StorageError>;
    }
}

impl Changes<'_> {
    /// The signals of this process: a write committed, a notification heard.
    pub fn follow(&self) -> broadcast::Receiver<Moved> {
        match self.0 {
            Store::Sqlite(db) => db.feed.follow(),
            Store::Postgres(db) => db.feed.follow(),
        }
    }
}
