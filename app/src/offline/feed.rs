//! What a page of the change feed (`GET /api/changes`, PROTOCOL.md "Changes and live
//! updates") does to the offline copy: each change becomes a step — keep this note, or
//! forget that one. (How an answer of the feed reads — a page, expired, signed out — is
//! `state::feed_cursor::FeedAnswer`, the one reading the live page uses too.)

use crate::api::{Change, ChangeKind, Note};

/// One thing to do to the copy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step<'a> {
    /// Put the note (as it stands now, its `html` included) in place of what is kept.
    Keep(&'a Note),
    /// The note was deleted for good.
    Forget(&'a str),
}

/// The steps for a page of changes. `kept_version` tells the version the copy holds of a
/// note: a note is only replaced by a newer one, so a page read before another tab (or
/// this one, after a restart) wrote a newer version never takes the copy back in time.
pub fn steps(changes: &[Change], kept_version: impl Fn(&str) -> Option<i64>) -> Vec<Step<'_>> {
    changes
        .iter()
        .filter_map(|change| match change.kind {
            ChangeKind::Purge => Some(Step::Forget(&change.note_id)),
            ChangeKind::Upsert => {
                let note = change.note.as_ref()?;
                let newer = kept_version(&note.id).is_none_or(|kept| note.version > kept);
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
        let kept = |id: &str| (id == "b").then_some(2);
        assert_eq!(
            steps(&changes, kept),
            [Step::Keep(&note("a", 1)), Step::Keep(&note("b", 3))]
        );
    }

    #[test]
    fn an_upsert_never_takes_the_copy_back_to_an_older_version() {
        let changes = [upsert(1, note("a", 2))];
        assert!(steps(&changes, |_| Some(3)).is_empty());
        assert!(steps(&changes, |_| Some(2)).is_empty());
    }

    #[test]
    fn a_purge_forgets_the_note() {
        let changes = [Change {
            seq: 4,
            note_id: "a".into(),
            kind: ChangeKind::Purge,
            note: None,
        }];
        assert_eq!(steps(&changes, |_| Some(9)), [Step::Forget("a")]);
    }
}
