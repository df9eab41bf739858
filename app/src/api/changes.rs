//! The change feed and its live stream (PROTOCOL.md, "Changes and live updates"): every
//! accepted write leaves one change per note it touched, numbered by the person's next
//! `seq`; `GET /api/changes` pages them, `GET /api/events` pushes them as they commit.

use serde::{Deserialize, Serialize};

use super::Note;

/// `GET /api/changes?since=<seq>&limit=<n>`.
pub const CHANGES_PATH: &str = "/api/changes";
/// `GET /api/events` (`text/event-stream`).
pub const EVENTS_PATH: &str = "/api/events";
/// The most changes one page of the feed holds (and the default).
pub const CHANGES_MAX_LIMIT: u32 = 200;
/// The event name of a change on the stream.
pub const CHANGE_EVENT: &str = "change";
/// The event the stream sends before it closes because the session ended.
pub const SIGNED_OUT_EVENT: &str = "signed-out";

/// What a change did to its note.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// The note was made or written to (an edit, a pin, a move to the trash or back…):
    /// the change carries it as it stands now.
    Upsert,
    /// The note was deleted for good.
    Purge,
}

impl ChangeKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Upsert => "upsert",
            ChangeKind::Purge => "purge",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "upsert" => Some(ChangeKind::Upsert),
            "purge" => Some(ChangeKind::Purge),
            _ => None,
        }
    }
}

/// One change of the feed: the newest change of its note (older ones are folded into it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Change {
    pub seq: i64,
    pub note_id: String,
    pub kind: ChangeKind,
    /// The note as it stands now (`None` for a purge).
    pub note: Option<Note>,
}

/// A page of the feed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ChangesPage {
    /// Oldest first, every `seq` greater than the `since` asked for.
    pub changes: Vec<Change>,
    /// The `since` of the next page: the last change's seq (or the `since` asked for when
    /// there is none).
    pub next: i64,
    /// Whether more changes follow `next` already.
    pub more: bool,
}

/// The `data` of a `change` event: enough to know whether this device has it; the note
/// itself is read from the feed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ChangeEvent {
    pub seq: i64,
    pub note_id: String,
    pub kind: ChangeKind,
    /// The note's version after the change (`None` for a purge).
    pub version: Option<i64>,
}
