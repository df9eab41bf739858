//! A save intent: one press of Save on one draft, with the idempotency key that every
//! attempt for it carries (PROTOCOL.md §Client 1), and how intents are kept in the
//! browser's storage across versions of the app.

use serde::{Deserialize, Serialize};

use super::outcome::{AnswerShape, WaitCause};
use super::waiting::WaitReason;
use crate::api::{NOTES_PATH, NewNote, NoteEdit, Problem, TAGS_PATH, TagRename};

/// The version of the stored form below for the kinds of write the release before knows
/// (create, edit, trash, restore, purge). An intent written by an older version is
/// migrated when read; one written by a newer version is shown, never dropped. A waiting
/// intent keeps why it waits as a cause ([`WaitReason`]), and beside it the sentence the
/// list shows, which is all an intent stored by the release before carries — so both
/// releases read each other's entries and these kinds stay at 2: after a rollback the
/// release before still reads and sends them.
pub const SCHEMA_VERSION: u32 = 2;

/// The version an intent of a kind added since (a pin, a tag rename) is stored with. The
/// release before reads any version above its own as "written by a newer version": it
/// lists the entry, counted, offers a reload, and keeps it — never as damaged, which it
/// would offer to discard. This version reads both.
pub const NEW_KINDS_SCHEMA_VERSION: u32 = 3;

/// Where an unsaved intent stands, as the list shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum IntentState {
    /// Made (and stored) but no attempt is running: it is sent at the next burst.
    Queued,
    /// An attempt is in flight.
    Sending,
    /// The next attempt of this burst starts at `at_ms` (milliseconds since the epoch);
    /// `cause` when the server said why it could not take the write (a full disk).
    Retrying {
        at_ms: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cause: Option<WaitCause>,
    },
    /// The burst ended without an answer; a new burst starts on `online`, page load,
    /// the tab becoming visible, Retry now, or the slow background retry.
    Waiting {
        /// Why. Stored as `cause`, with the sentence under `reason` for the release
        /// before, which reads only that (see `waiting::stored`).
        #[serde(flatten, with = "super::waiting::stored")]
        cause: WaitReason,
    },
    /// The server refused the payload for good; only Edit or Discard can follow.
    Failed { problem: Problem },
    /// Its person is not signed in (the session ended, or someone else signed in on this
    /// browser since): kept, and sent with its own key once they sign in again.
    SignedOut,
}

/// What the intent asks the server to do. Every write is an intent of one queue: an edit
/// or a delete is a save intent of another kind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum IntentKind {
    /// Create a note.
    Create { title: String, body: String },
    /// Change a note's title and body, starting from `base_version` (the version the
    /// person saw). `after` is the key of an earlier edit of the same note from this
    /// browser, still unsent when this one was made (see `rebased_after`).
    Edit {
        note_id: String,
        base_version: i64,
        title: String,
        body: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after: Option<String>,
    },
    /// Move a note to the trash (`title` only to show what the intent is about).
    Trash { note_id: String, title: String },
    /// Take a note out of the trash.
    Restore { note_id: String, title: String },
    /// Delete a note for good.
    Purge { note_id: String, title: String },
    /// Pin a note (`pinned`), or unpin it: `PATCH` with `pinned` alone, no base version
    /// (a pin changes no text, so it cannot undo anyone's edit).
    Pin {
        note_id: String,
        title: String,
        pinned: bool,
    },
    /// Rename the tag `from` (as kept: folded) to `to` (as the person wrote it) in every
    /// note that has it.
    RenameTag { from: String, to: String },
}

impl IntentKind {
    /// The stored form's version for this kind: the kinds the release before knows keep
    /// [`SCHEMA_VERSION`], so that release still sends them after a rollback; the newer
    /// kinds take [`NEW_KINDS_SCHEMA_VERSION`], which it keeps for a newer version to send.
    pub fn schema_version(&self) -> u32 {
        match self {
            IntentKind::Create { .. }
            | IntentKind::Edit { .. }
            | IntentKind::Trash { .. }
            | IntentKind::Restore { .. }
            | IntentKind::Purge { .. } => SCHEMA_VERSION,
            IntentKind::Pin { .. } | IntentKind::RenameTag { .. } => NEW_KINDS_SCHEMA_VERSION,
        }
    }
}

/// One save intent, persisted in localStorage from before its first attempt until the
/// server acknowledged it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SaveIntent {
    /// The stored form's version: its kind's [`IntentKind::schema_version`] when written by
    /// this version.
    pub v: u32,
    pub key: String,
    #[serde(flatten)]
    pub kind: IntentKind,
    /// When Save was pressed, RFC 3339, as the device's clock said: part of the payload,
    /// shown to the person — never the queue's order (a clock can be stepped back).
    pub written_at: String,
    /// Where this press stands among this browser's presses: a counter that only goes up,
    /// kept beside the intents. The queue is sent in this order. `None` for an intent made
    /// by a version of the page from before the counter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    /// Attempts spent on this intent so far, over all bursts.
    pub attempts: u32,
    pub state: IntentState,
}

/// The order the queue is sent in: the order of the presses, by their counter. Intents
/// made before the counter existed come first (they are older than any press since),
/// among themselves by the time they were made; equal counters (two tabs pressing in the
/// same instant) by key.
pub fn queue_order(intent: &SaveIntent) -> (bool, u64, &str, &str) {
    (
        intent.seq.is_some(),
        intent.seq.unwrap_or(0),
        if intent.seq.is_some() {
            ""
        } else {
            &intent.written_at
        },
        &intent.key,
    )
}

/// The HTTP method of a write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteMethod {
    Post,
    Patch,
    Delete,
}

impl WriteMethod {
    /// The method as HTTP writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            WriteMethod::Post => "POST",
            WriteMethod::Patch => "PATCH",
            WriteMethod::Delete => "DELETE",
        }
    }
}

/// The request one attempt makes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireRequest {
    pub method: WriteMethod,
    pub path: String,
    /// The JSON body.
    pub body: String,
}

impl SaveIntent {
    /// A new intent to create a note, with its own key.
    pub fn create(key: String, title: &str, body: &str, written_at: String) -> Self {
        Self {
            v: SCHEMA_VERSION,
            key,
            kind: IntentKind::Create {
                title: title.to_owned(),
                body: body.to_owned(),
            },
            written_at,
            seq: None,
            attempts: 0,
            state: IntentState::Queued,
        }
    }

    /// A new intent of any kind, with its own key.
    pub fn new(key: String, kind: IntentKind, written_at: String) -> Self {
        Self {
            v: kind.schema_version(),
            key,
            kind,
            written_at,
            seq: None,
            attempts: 0,
            state: IntentState::Queued,
        }
    }

    /// The request every attempt sends. The key is never sent with another payload.
    pub fn request(&self) -> WireRequest {
        let note = |id: &str| format!("{NOTES_PATH}/{id}");
        match &self.kind {
            IntentKind::Create { title, body } => WireRequest {
                method: WriteMethod::Post,
                path: NOTES_PATH.to_owned(),
                body: serde_json::to_string(&NewNote {
                    title: title.clone(),
                    body: body.clone(),
                    written_at: self.written_at.clone(),
                })
                .unwrap_or_default(),
            },
            IntentKind::Edit {
                note_id,
                base_version,
                title,
                body,
                ..
            } => WireRequest {
                method: WriteMethod::Patch,
                path: note(note_id),
                body: serde_json::to_string(&NoteEdit {
                    title: Some(title.clone()),
                    body: Some(body.clone()),
                    base_version: Some(*base_version),
                    pinned: None,
                    written_at: self.written_at.clone(),
                })
                .unwrap_or_default(),
            },
            IntentKind::Trash { note_id, .. } => WireRequest {
                method: WriteMethod::Delete,
                path: note(note_id),
                body: String::new(),
            },
            IntentKind::Restore { note_id, .. } => WireRequest {
                method: WriteMethod::Post,
                path: format!("{}/restore", note(note_id)),
                body: String::new(),
            },
            IntentKind::Purge { note_id, .. } => WireRequest {
                method: WriteMethod::Delete,
                path: format!("{}?permanent=true", note(note_id)),
                body: String::new(),
            },
            IntentKind::Pin {
                note_id, pinned, ..
            } => WireRequest {
                method: WriteMethod::Patch,
                path: note(note_id),
                body: serde_json::to_string(&NoteEdit {
                    title: None,
                    body: None,
                    base_version: None,
                    pinned: Some(*pinned),
                    written_at: self.written_at.clone(),
                })
                .unwrap_or_default(),
            },
            IntentKind::RenameTag { from, to } => WireRequest {
                method: WriteMethod::Post,
                path: format!("{TAGS_PATH}/rename"),
                body: serde_json::to_string(&TagRename {
                    from: from.clone(),
                    to: to.clone(),
                    written_at: self.written_at.clone(),
                })
                .unwrap_or_default(),
            },
        }
    }

    /// The answer a success carries for this kind of write.
    pub fn answer_shape(&self) -> AnswerShape {
        match self.kind {
            IntentKind::Create { .. } => AnswerShape::Created,
            IntentKind::Edit { .. } => AnswerShape::Edited,
            IntentKind::Trash { .. } | IntentKind::Restore { .. } | IntentKind::Pin { .. } => {
                AnswerShape::Moved
            }
            IntentKind::Purge { .. } => AnswerShape::Purged,
            IntentKind::RenameTag { .. } => AnswerShape::Renamed,
        }
    }

    /// The title and body this intent carries (what the list shows; a move or a pin
    /// carries the note's title only, a tag rename neither).
    pub fn text(&self) -> (&str, &str) {
        match &self.kind {
            IntentKind::Create { title, body } | IntentKind::Edit { title, body, .. } => {
                (title, body)
            }
            IntentKind::Trash { title, .. }
            | IntentKind::Restore { title, .. }
            | IntentKind::Purge { title, .. }
            | IntentKind::Pin { title, .. } => (title, ""),
            IntentKind::RenameTag { .. } => ("", ""),
        }
    }

    /// The note this intent changes (none for a create, nor for a tag rename, which
    /// changes every note that has the tag).
    pub fn note_id(&self) -> Option<&str> {
        match &self.kind {
            IntentKind::Create { .. } | IntentKind::RenameTag { .. } => None,
            IntentKind::Edit { note_id, .. }
            | IntentKind::Trash { note_id, .. }
            | IntentKind::Restore { note_id, .. }
            | IntentKind::Purge { note_id, .. }
            | IntentKind::Pin { note_id, .. } => Some(note_id),
        }
    }

    /// Whether this intent was made from exactly this draft (creates and edits).
    pub fn matches_draft(&self, title: &str, body: &str) -> bool {
        matches!(
            self.kind,
            IntentKind::Create { .. } | IntentKind::Edit { .. }
        ) && self.text() == (title, body)
    }

    /// An edit made while an earlier edit of the same note (`after`) was still unsent,
    /// from the same version, starts from the version that earlier edit produced — when
    /// it was applied as sent, and only before this one's first attempt (a key is never
    /// sent with two payloads). A merged earlier edit keeps the old base: the server's
    /// merge against it keeps the other device's changes.
    pub fn rebased_after(&self, earlier_base: i64, earlier_result: i64) -> Option<SaveIntent> {
        let IntentKind::Edit { base_version, .. } = &self.kind else {
            return None;
        };
        if self.attempts > 0 || *base_version != earlier_base {
            return None;
        }
        let mut rebased = self.clone();
        if let IntentKind::Edit { base_version, .. } = &mut rebased.kind {
            *base_version = earlier_result;
        }
        Some(rebased)
    }

    /// Failed intents wait for the person; every other state still wants to be sent.
    pub fn is_failed(&self) -> bool {
        matches!(self.state, IntentState::Failed { .. })
    }

    /// After a page load nothing of this tab is in flight any more: whatever was
    /// sending or scheduled is shown as queued (a failed intent stays failed).
    pub fn after_reload(mut self) -> Self {
        if matches!(
            self.state,
            IntentState::Sending
                | IntentState::Retrying { .. }
                | IntentState::Waiting { .. }
                | IntentState::SignedOut
        ) {
            self.state = IntentState::Queued;
        }
        self
    }
}

/// Why a stored entry could not be read as an intent. It is shown, never skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unreadable {
    /// Written by a newer version of the app (another tab, after an update): a reload
    /// brings this tab up to that version, which can send it.
    Newer { version: u64 },
    /// Not an intent at all (damaged); the raw text is kept so nothing typed is lost.
    Damaged { reason: String },
}

/// Reads a stored entry, migrating older versions.
pub fn read_stored(raw: &str) -> Result<SaveIntent, Unreadable> {
    let damaged = |reason: String| Unreadable::Damaged { reason };
    let value: serde_json::Value = serde_json::from_str(raw).map_err(|e| damaged(e.to_string()))?;
    let readable = u64::from(SCHEMA_VERSION)..=u64::from(NEW_KINDS_SCHEMA_VERSION);
    match value.get("v").map(|v| v.as_u64()) {
        None => migrate_v1(value).map_err(|e| damaged(e.to_string())),
        Some(Some(v)) if readable.contains(&v) => {
            serde_json::from_value(value).map_err(|e| damaged(e.to_string()))
        }
        Some(Some(v)) if v > *readable.end() => Err(Unreadable::Newer { version: v }),
        Some(other) => Err(damaged(format!("unknown version {other:?}"))),
    }
}

/// Version 1 (before intents had kinds): `{key, title, body, written_at, attempts, state}`.
fn migrate_v1(value: serde_json::Value) -> Result<SaveIntent, serde_json::Error> {
    #[derive(Deserialize)]
    struct V1 {
        key: String,
        title: String,
        body: String,
        written_at: String,
        attempts: u32,
        state: IntentState,
    }
    let old: V1 = serde_json::from_value(value)?;
    Ok(SaveIntent {
        attempts: old.attempts,
        state: old.state,
        ..SaveIntent::create(old.key, &old.title, &old.body, old.written_at)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn intent(state: IntentState) -> SaveIntent {
        SaveIntent {
            state,
            ..SaveIntent::create("k".into(), "t", "b", "2026-01-01T00:00:00.000Z".into())
        }
    }

    #[test]
    fn an_intent_survives_a_round_trip_through_storage_unchanged() {
        let original = intent(IntentState::Retrying {
            at_ms: 12.5,
            cause: None,
        });
        let json = serde_json::to_string(&original).unwrap();
        assert_eq!(read_stored(&json).unwrap(), original);
        let full = intent(IntentState::Retrying {
            at_ms: 12.5,
            cause: Some(WaitCause::StorageFull),
        });
        let json = serde_json::to_string(&full).unwrap();
        assert!(json.contains(r#""cause":"storage-full""#), "{json}");
        assert_eq!(read_stored(&json).unwrap(), full);
    }

    #[test]
    fn an_intent_stored_by_the_first_version_is_migrated_not_dropped() {
        let v1 = r#"{"key":"k1","title":"Groceries","body":"milk","written_at":"2026-11-30T05:00:00.000Z","attempts":3,"state":{"kind":"waiting","reason":"offline"}}"#;
        let intent = read_stored(v1).unwrap();
        assert_eq!(intent.v, SCHEMA_VERSION);
        assert_eq!(intent.key, "k1");
        assert_eq!(intent.text(), ("Groceries", "milk"));
        assert_eq!(intent.attempts, 3);
    }

    #[test]
    fn a_waiting_intent_stored_by_the_previous_release_still_loads_and_is_sent() {
        // The release before kept why an intent waited only as the sentence the list showed.
        let v2 = r#"{"v":2,"key":"k2","op":"edit","note_id":"n1","base_version":4,"title":"Groceries","body":"milk","written_at":"2026-11-30T05:00:00.000Z","seq":7,"attempts":5,"state":{"kind":"waiting","reason":"the server could not be reached; sent again by itself, or now with Retry now"}}"#;
        let intent = read_stored(v2).unwrap();
        assert_eq!(intent.v, SCHEMA_VERSION);
        assert_eq!(intent.key, "k2");
        assert_eq!(intent.seq, Some(7));
        assert_eq!(intent.attempts, 5);
        assert_eq!(
            intent.state,
            IntentState::Waiting {
                cause: WaitReason::Earlier(
                    "the server could not be reached; sent again by itself, or now with Retry now"
                        .into()
                )
            }
        );
        let request = intent.request();
        assert_eq!(
            (request.method, request.path.as_str()),
            (WriteMethod::Patch, "/api/notes/n1")
        );
        assert_eq!(intent.after_reload().state, IntentState::Queued);
        // Every other state of version 2 is stored as it is now.
        let queued = v2.replace(
            r#"{"kind":"waiting","reason":"the server could not be reached; sent again by itself, or now with Retry now"}"#,
            r#"{"kind":"queued"}"#,
        );
        assert_eq!(read_stored(&queued).unwrap().state, IntentState::Queued);
    }

    #[test]
    fn a_waiting_intent_keeps_its_cause_and_the_release_before_can_still_read_it() {
        let cause = WaitReason::Server(WaitCause::DatabaseUnavailable);
        let waiting = intent(IntentState::Waiting {
            cause: cause.clone(),
        });
        let json = serde_json::to_string(&waiting).unwrap();
        assert!(
            json.contains(r#""cause":{"server":"database-unavailable"}"#),
            "{json}"
        );
        assert_eq!(read_stored(&json).unwrap(), waiting);
        // The release before reads version 2 with a sentence under `reason`, and
        // nothing else of a waiting state: it can read, show and send this entry.
        #[derive(serde::Deserialize)]
        struct PreviousRelease {
            v: u32,
            state: PreviousState,
        }
        #[derive(serde::Deserialize)]
        #[serde(tag = "kind", rename_all = "snake_case")]
        enum PreviousState {
            Waiting { reason: String },
        }
        let before: PreviousRelease = serde_json::from_str(&json).unwrap();
        assert_eq!(before.v, 2);
        let PreviousState::Waiting { reason } = before.state;
        assert_eq!(reason, cause.sentence());
        let offline = intent(IntentState::Waiting {
            cause: WaitReason::Offline,
        });
        let json = serde_json::to_string(&offline).unwrap();
        assert_eq!(read_stored(&json).unwrap(), offline);
    }

    #[test]
    fn a_waiting_intent_whose_cause_this_version_does_not_know_reads_as_its_sentence() {
        // A later release may add causes; the sentence beside each keeps the entry
        // readable (and sendable) here instead of damaged.
        let stored = r#"{"v":2,"key":"k3","op":"create","title":"T","body":"b","written_at":"2026-12-01T05:00:00.000Z","attempts":1,"state":{"kind":"waiting","reason":"the moon is full; sent again by itself","cause":{"lunar":"full"}}}"#;
        let intent = read_stored(stored).unwrap();
        assert_eq!(
            intent.state,
            IntentState::Waiting {
                cause: WaitReason::Earlier("the moon is full; sent again by itself".into())
            }
        );
    }

    #[test]
    fn an_intent_from_a_newer_version_or_a_damaged_entry_is_unreadable_but_reported() {
        assert_eq!(
            read_stored(r#"{"v":9,"key":"k","op":"teleport"}"#),
            Err(Unreadable::Newer { version: 9 })
        );
        assert!(matches!(
            read_stored("{not json"),
            Err(Unreadable::Damaged { .. })
        ));
        assert!(matches!(
            read_stored(r#"{"v":2,"key":"k"}"#),
            Err(Unreadable::Damaged { .. })
        ));
    }

    fn of_kind(kind: IntentKind) -> SaveIntent {
        SaveIntent::new("k".into(), kind, "2026-12-01T05:00:00.000Z".into())
    }

    fn pin() -> IntentKind {
        IntentKind::Pin {
            note_id: "n1".into(),
            title: "Groceries".into(),
            pinned: true,
        }
    }

    fn rename() -> IntentKind {
        IntentKind::RenameTag {
            from: "work".into(),
            to: "Job".into(),
        }
    }

    fn old_kinds() -> Vec<IntentKind> {
        let note_id = || "n1".to_owned();
        let title = || "t".to_owned();
        vec![
            IntentKind::Create {
                title: title(),
                body: "b".into(),
            },
            IntentKind::Edit {
                note_id: note_id(),
                base_version: 2,
                title: title(),
                body: "b".into(),
                after: None,
            },
            IntentKind::Trash {
                note_id: note_id(),
                title: title(),
            },
            IntentKind::Restore {
                note_id: note_id(),
                title: title(),
            },
            IntentKind::Purge {
                note_id: note_id(),
                title: title(),
            },
        ]
    }

    /// How the release before (which knew version 2 only) sorts a stored entry.
    fn as_the_release_before_reads(raw: &str) -> &'static str {
        let value: serde_json::Value = serde_json::from_str(raw).unwrap();
        match value.get("v").map(serde_json::Value::as_u64) {
            Some(Some(2)) => "reads and sends it",
            Some(Some(v)) if v > 2 => "newer: offers a reload and keeps it",
            _ => "damaged: offers to discard it",
        }
    }

    #[test]
    fn a_pin_or_a_tag_rename_is_stored_as_version_3_and_read_back_unchanged() {
        for kind in [pin(), rename()] {
            let intent = of_kind(kind);
            let json = serde_json::to_string(&intent).unwrap();
            assert!(json.contains(r#""v":3"#), "{json}");
            assert_eq!(read_stored(&json).unwrap(), intent);
            assert_eq!(
                as_the_release_before_reads(&json),
                "newer: offers a reload and keeps it"
            );
        }
    }

    #[test]
    fn the_kinds_the_release_before_knows_stay_version_2_so_a_rollback_still_sends_them() {
        for kind in old_kinds() {
            let intent = of_kind(kind);
            let json = serde_json::to_string(&intent).unwrap();
            assert!(json.contains(r#""v":2"#), "{json}");
            assert_eq!(as_the_release_before_reads(&json), "reads and sends it");
            assert_eq!(read_stored(&json).unwrap(), intent);
        }
        // Whatever version an entry of a known kind carries, 2 or 3, it is read; above 3 it
        // is a newer version's.
        let create = serde_json::to_string(&of_kind(old_kinds().remove(0))).unwrap();
        let as_v3 = create.replace(r#""v":2"#, r#""v":3"#);
        assert!(read_stored(&as_v3).is_ok());
        let as_v4 = create.replace(r#""v":2"#, r#""v":4"#);
        assert_eq!(read_stored(&as_v4), Err(Unreadable::Newer { version: 4 }));
    }

    #[test]
    fn a_pin_is_a_patch_of_pinned_alone_and_a_rename_posts_both_names() {
        let pin = of_kind(pin());
        let request = pin.request();
        assert_eq!(
            (request.method, request.path.as_str()),
            (WriteMethod::Patch, "/api/notes/n1")
        );
        let sent: serde_json::Value = serde_json::from_str(&request.body).unwrap();
        assert_eq!(
            sent,
            serde_json::json!({"pinned": true, "written_at": "2026-12-01T05:00:00.000Z"})
        );
        assert_eq!(pin.answer_shape(), AnswerShape::Moved);
        assert_eq!(pin.note_id(), Some("n1"));
        assert_eq!(pin.text(), ("Groceries", ""));
        assert!(!pin.matches_draft("Groceries", ""));

        let rename = of_kind(rename());
        let request = rename.request();
        assert_eq!(
            (request.method, request.path.as_str()),
            (WriteMethod::Post, "/api/tags/rename")
        );
        let sent: TagRename = serde_json::from_str(&request.body).unwrap();
        assert_eq!(
            (
                sent.from.as_str(),
                sent.to.as_str(),
                sent.written_at.as_str()
            ),
            ("work", "Job", "2026-12-01T05:00:00.000Z")
        );
        assert_eq!(rename.answer_shape(), AnswerShape::Renamed);
        assert_eq!(rename.note_id(), None);
    }

    #[test]
    fn a_reload_requeues_in_flight_intents_but_keeps_failed_ones_failed() {
        assert_eq!(
            intent(IntentState::Sending).after_reload().state,
            IntentState::Queued
        );
        let failed = IntentState::Failed {
            problem: Problem {
                kind: "/problems/validation-failed".into(),
                title: "t".into(),
                status: 422,
                detail: "d".into(),
            },
        };
        assert_eq!(intent(failed.clone()).after_reload().state, failed);
    }

    #[test]
    fn every_kind_of_write_is_its_own_request() {
        let intent = |kind| SaveIntent::new("k".into(), kind, "2026-01-01T00:00:00.000Z".into());
        let edit = intent(IntentKind::Edit {
            note_id: "n1".into(),
            base_version: 3,
            title: "t".into(),
            body: "b".into(),
            after: None,
        })
        .request();
        assert_eq!(
            (edit.method, edit.path.as_str()),
            (WriteMethod::Patch, "/api/notes/n1")
        );
        let sent: NoteEdit = serde_json::from_str(&edit.body).unwrap();
        assert_eq!(sent.base_version, Some(3));
        let trash = intent(IntentKind::Trash {
            note_id: "n1".into(),
            title: "t".into(),
        })
        .request();
        assert_eq!(
            (trash.method, trash.path.as_str()),
            (WriteMethod::Delete, "/api/notes/n1")
        );
        let restore = intent(IntentKind::Restore {
            note_id: "n1".into(),
            title: "t".into(),
        })
        .request();
        assert_eq!(
            (restore.method, restore.path.as_str()),
            (WriteMethod::Post, "/api/notes/n1/restore")
        );
        let purge = intent(IntentKind::Purge {
            note_id: "n1".into(),
            title: "t".into(),
        })
        .request();
        assert_eq!(
            (purge.method, purge.path.as_str()),
            (WriteMethod::Delete, "/api/notes/n1?permanent=true")
        );
    }

    #[test]
    fn an_unsent_edit_made_behind_an_applied_one_starts_from_its_result() {
        let later = SaveIntent::new(
            "k2".into(),
            IntentKind::Edit {
                note_id: "n".into(),
                base_version: 3,
                title: "t".into(),
                body: "b2".into(),
                after: Some("k1".into()),
            },
            "w".into(),
        );
        let rebased = later.rebased_after(3, 4).unwrap();
        assert!(matches!(
            rebased.kind,
            IntentKind::Edit {
                base_version: 4,
                ..
            }
        ));
        assert!(later.rebased_after(2, 4).is_none(), "another base");
        let sent = SaveIntent {
            attempts: 1,
            ..later
        };
        assert!(
            sent.rebased_after(3, 4).is_none(),
            "a key never changes its payload"
        );
    }

    #[test]
    fn a_create_is_a_post_carrying_the_time_save_was_pressed() {
        let request = intent(IntentState::Queued).request();
        assert_eq!(request.method, WriteMethod::Post);
        assert_eq!(request.path, "/api/notes");
        let sent: NewNote = serde_json::from_str(&request.body).unwrap();
        assert_eq!(sent.written_at, "2026-01-01T00:00:00.000Z");
        assert_eq!(sent.title, "t");
    }

    #[test]
    fn the_queue_keeps_the_order_of_presses_whatever_the_clock_said() {
        let press = |key: &str, written_at: &str, seq: Option<u64>| SaveIntent {
            seq,
            ..SaveIntent::create(key.into(), "t", "b", written_at.into())
        };
        // Pressed first with the clock three days ahead, then after it was set back.
        let first = press("zz-first", "2026-12-04T10:00:00.000Z", Some(7));
        let second = press("aa-second", "2026-12-01T10:00:00.000Z", Some(8));
        // Made by a page from before the counter: older than both.
        let legacy_late = press("k-old-2", "2026-11-30T09:00:00.000Z", None);
        let legacy_early = press("k-old-1", "2026-11-30T08:00:00.000Z", None);
        let mut queue = [&second, &legacy_late, &first, &legacy_early];
        queue.sort_by(|a, b| queue_order(a).cmp(&queue_order(b)));
        let keys: Vec<&str> = queue.iter().map(|i| i.key.as_str()).collect();
        assert_eq!(keys, ["k-old-1", "k-old-2", "zz-first", "aa-second"]);
    }

    #[test]
    fn an_intent_without_a_counter_still_reads_and_one_with_it_keeps_it() {
        let before_the_counter = serde_json::to_string(&SaveIntent::create(
            "k".into(),
            "t",
            "b",
            "2026-11-30T05:00:00.000Z".into(),
        ))
        .unwrap();
        assert!(!before_the_counter.contains("seq"));
        let intent = read_stored(&before_the_counter).unwrap();
        assert_eq!(intent.seq, None);
        let with = SaveIntent {
            seq: Some(42),
            ..intent
        };
        let stored = serde_json::to_string(&with).unwrap();
        assert_eq!(read_stored(&stored).unwrap().seq, Some(42));
    }
}
