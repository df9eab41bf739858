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

/// Whose feed may have moved, or whose sessions changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Moved {
    /// One person's feed (a write committed).
    Person(String),
    /// One person's sessions: one ended (a sign-out, a new password, an account disabled,
    /// a token revoked), so their streams check theirs now.
    Sessions(String),
    /// Anyone's, both: signals may have been missed (PostgreSQL's listener reconnected).
    Everyone,
}

/// What a live stream sends of the feed after a seq: each change's seq, note, kind and the
/// note's version (no note), with the feed's bounds — read in one statement, so a stream
/// woken by every write of its person costs one query, not a snapshot of notes.
#[derive(Clone, Debug, Default)]
pub struct EventsPage {
    /// Oldest first; one more than asked when more follow.
    pub events: Vec<app::api::ChangeEvent>,
    /// The person's latest seq.
    pub latest: i64,
    /// The feed no longer holds the purges up to this seq.
    pub compacted_through: i64,
}

/// An [`EventsPage`] from its rows: `(latest, compacted_through, seq, note_id, kind,
/// version)`, the change's columns `NULL` on the one row of a feed with nothing after the
/// seq. An upsert whose note is gone (a broken feed) is told as a purge.
pub(super) fn events_of(rows: Vec<EventRow>) -> Result<EventsPage, StorageError> {
    let mut page = EventsPage::default();
    for (latest, compacted_through, seq, note_id, kind, version) in rows {
        page.latest = latest;
        page.compacted_through = compacted_through;
        let (Some(seq), Some(note_id), Some(kind)) = (seq, note_id, kind) else {
            continue;
        };
        let kind = match (change_kind(&kind)?, version) {
            (ChangeKind::Upsert, None) => ChangeKind::Purge,
            (kind, _) => kind,
        };
        page.events.push(app::api::ChangeEvent {
            seq,
            note_id,
            version: version.filter(|_| kind == ChangeKind::Upsert),
            kind,
        });
    }
    Ok(page)
}

/// A row of the events query (see [`events_of`]).
pub(super) type EventRow = (
    i64,
    i64,
    Option<i64>,
    Option<String>,
    Option<String>,
    Option<i64>,
);

/// The events query, the same on both databases: `$1` the scope, `$2` the seq to read
/// after, `$3` how many (one more than the page, to tell that more follow). The
/// counter's row is the left side, so a feed with nothing after `$2` still gives its
/// bounds.
pub(super) const EVENTS_SINCE: &str = "SELECT k.seq, k.compacted_through, c.seq, c.note_id, \
     c.kind, n.version FROM change_counters k \
     LEFT JOIN (SELECT seq, note_id, kind FROM changes WHERE scope = $1 AND seq > $2 \
       ORDER BY seq LIMIT $3) AS c ON true \
     LEFT JOIN notes n ON n.scope = $1 AND n.id = c.note_id \
     WHERE k.scope = $1 ORDER BY c.seq";

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
