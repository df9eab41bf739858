//! The change feed's side of storage (PROTOCOL.md, "Changes and live updates"): what a
//! page of the feed holds, and the signal a store raises when a person's feed may have
//! moved, for the live streams (`crate::live`) to read it again.
//!
//! The signal carries only whose feed moved, never the changes: a stream always reads
//! from its own cursor, so a signal lost or doubled costs a read, never a change.

use app::api::{Change, ChangeKind};
use tokio::sync::broadcast;

use super::StorageError;

/// A page of a person's feed, read in one snapshot with the feed's bounds.
#[derive(Clone, Debug, Default)]
pub struct FeedPage {
    /// Oldest first; one more than asked when more follow.
    pub changes: Vec<Change>,
    /// The person's latest seq.
    pub latest: i64,
    /// The feed no longer holds the purges up to this seq.
    pub compacted_through: i64,
}

/// Whose feed may have moved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Moved {
    /// One person's (a write committed; a session of theirs ended).
    Person(String),
    /// Anyone's: signals may have been missed (PostgreSQL's listener reconnected).
    Everyone,
}

/// How many signals wait for a slow follower before it is told it lagged (and reads
/// everyone's feed again).
const BACKLOG: usize = 1024;

/// Raised by the store, followed by the live streams' hub.
#[derive(Clone, Debug)]
pub struct FeedSignal(broadcast::Sender<Moved>);

impl Default for FeedSignal {
    fn default() -> Self {
        Self(broadcast::channel(BACKLOG).0)
    }
}

impl FeedSignal {
    pub fn raise(&self, moved: Moved) {
        // No follower (no stream open): nobody to tell.
        let _ = self.0.send(moved);
    }

    pub fn follow(&self) -> broadcast::Receiver<Moved> {
        self.0.subscribe()
    }
}

/// A change's kind from its stored name.
pub fn change_kind(name: &str) -> Result<ChangeKind, StorageError> {
    ChangeKind::parse(name)
        .ok_or_else(|| StorageError::Other(anyhow::anyhow!("unknown change kind {name:?}")))
}

/// The changes of a page, each upsert with its note (found in the same snapshot).
pub(super) fn changes_of(
    rows: Vec<(i64, String, String)>,
    mut notes: Vec<app::api::Note>,
) -> Result<Vec<Change>, StorageError> {
    rows.into_iter()
        .map(|(seq, note_id, kind)| {
            let kind = change_kind(&kind)?;
            let note = match kind {
                ChangeKind::Upsert => notes
                    .iter()
                    .position(|n| n.id == note_id)
                    .map(|at| notes.swap_remove(at)),
                ChangeKind::Purge => None,
            };
            // An upsert whose note is not there would be a broken feed: say it was purged
            // rather than hand out a change with no note.
            let kind = if note.is_none() {
                ChangeKind::Purge
            } else {
                kind
            };
            Ok(Change {
                seq,
                note_id,
                kind,
                note,
            })
        })
        .collect()
}
