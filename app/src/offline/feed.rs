//! What a page of the change feed (`GET /api/changes`, PROTOCOL.md "Changes and live
//! updates") does to the offline copy: each change becomes a step — keep this note, or
//! forget that one and remember its purge. (How an answer of the feed reads — a page,
//! expired, signed out — is `state::feed_cursor::FeedAnswer`, the one reading the live
//! page uses too.)

use crate::api::{Change, ChangeKind, Note};

/// What the copy holds under a note's id, before a page of changes is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Held {
    /// The note, at this version.
    Version(i64),
    /// A purge of the note, at this seq of the feed: the note is gone, and a change of it
    /// older than that (a page read before the purge was applied) must not bring it back.
    PurgedAt(i64),
}

/// One thing to do to the copy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step<'a> {
    /// Put the note (as it stands now, its `html` included) in place of what is kept.
    Keep(&'a Note),
    /// The note was deleted for good at `seq`: drop it and remember the purge.
    Forget { id: &'a str, seq: i64 },
}

/// The steps for a page of changes. `held` tells what the copy holds under a note's id:
/// a note is only replaced by a newer one, so a page read before another tab (or this
/// one, after a restart) wrote a newer version never takes the copy back in time; and a
/// purged note comes back only with a change newer than its purge, so a page read before
/// the live page applied the purge never puts it back.
pub fn steps(changes: &[Change], held: impl Fn(&str) -> Option<Held>) -> Vec<Step<'_>> {
    changes
        .iter()
        .filter_map(|change| match change.kind {
            ChangeKind::Purge => Some(Step::Forget {
                id: &change.note_id,
                seq: change.seq,
            }),
            ChangeKind::Upsert => {
                let note = change.note.as_ref()?;
                let newer = match held(&note.id) {
                    None => true,
                    Some(Held::Version(kept)) => note.version > kept,
                    Some(Held::PurgedAt(seq)) => change.seq > seq,
                };
                newer.then_some(Step::Keep(note))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(id: &str, version: i64) -> Note {
        Note {
            id: id.into(),
            title: format!("{id} v{version}"),
            body: String::new(),
            written_at: "w".into(),
            created_at: "c".into(),
            updated_at: "u".into(),
            version,
            trashed_at: None,
            conflict_of: None,
            tags: Vec::new(),
            pinned: false,
            html: Some("<p></p>".into()),
        }
    }

    fn upsert(seq: i64, note: Note) -> Change {
        Change {
            seq,
            note_id: note.id.clone(),
            kind: ChangeKind::Upsert,
            note: Some(note),
        }
    }

    #[test]
    fn an_upsert_keeps_a_note_the_copy_does_not_have_or_has_older() {
        let changes = [upsert(1, note("a", 1)), upsert(2, note("b", 3))];
        let kept = |id: &str| (id == "b").then_some(Held::Version(2));
        assert_eq!(
            steps(&changes, kept),
            [Step::Keep(&note("a", 1)), Step::Keep(&note("b", 3))]
        );
    }

    #[test]
    fn an_upsert_never_takes_the_copy_back_to_an_older_version() {
        let changes = [upsert(1, note("a", 2))];
        assert!(steps(&changes, |_| Some(Held::Version(3))).is_empty());
        assert!(steps(&changes, |_| Some(Held::Version(2))).is_empty());
    }

    #[test]
    fn a_purge_forgets_the_note() {
        let changes = [Change {
            seq: 4,
            note_id: "a".into(),
            kind: ChangeKind::Purge,
            note: None,
        }];
        assert_eq!(
            steps(&changes, |_| Some(Held::Version(9))),
            [Step::Forget { id: "a", seq: 4 }]
        );
    }

    #[test]
    fn a_change_older_than_a_purge_the_copy_applied_does_not_bring_the_note_back() {
        // A page read (seq 3) before the live page applied the purge (seq 7).
        let changes = [upsert(3, note("a", 1))];
        assert!(steps(&changes, |_| Some(Held::PurgedAt(7))).is_empty());
    }

    #[test]
    fn a_change_newer_than_the_purge_the_copy_holds_is_kept() {
        let changes = [upsert(8, note("a", 1))];
        assert_eq!(
            steps(&changes, |_| Some(Held::PurgedAt(7))),
            [Step::Keep(&note("a", 1))]
        );
    }

    #[test]
    fn within_a_page_a_purge_after_an_upsert_forgets_the_note() {
        let purge = Change {
            seq: 5,
            note_id: "a".into(),
            kind: ChangeKind::Purge,
            note: None,
        };
        let changes = [upsert(4, note("a", 1)), purge];
        assert_eq!(
            steps(&changes, |_| None),
            [Step::Keep(&note("a", 1)), Step::Forget { id: "a", seq: 5 }]
        );
    }
}
