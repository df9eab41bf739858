//! What an edit does to a note, decided without touching the database: applied when the
//! note is still at the version the edit started from, merged line by line when it
//! changed elsewhere in other lines, or kept as a conflict copy when the changes overlap
//! — the text of an edit is never dropped. `edit.rs` does the reading and writing around
//! these decisions.

use app::api::{EditOutcome, Note, Revision};

use super::changes::ValidNoteEdit;
use super::merge::{Merged, Text, three_way};
use crate::error::ApiError;

/// The older version an edit started from, which the merge needs to read; `None` when the
/// edit starts from the note as it is. Refuses an edit whose `If-Match` the note does not
/// meet (412 with the note) and one that claims a version the note never had (422).
pub fn older_base(current: &Note, edit: &ValidNoteEdit) -> Result<Option<i64>, ApiError> {
    if !edit.if_match.allows(current.version) {
        return Err(ApiError::PreconditionFailed {
            current: Box::new(current.clone()),
        });
    }
    let base = edit
        .if_match
        .version()
        .or(edit.base_version)
        .unwrap_or(current.version);
    if base > current.version {
        return Err(ApiError::ValidationFailed(format!(
            "base_version {base} is newer than the note (version {})",
            current.version
        )));
    }
    Ok((base < current.version).then_some(base))
}

/// The text the edit started from.
pub enum Base<'a> {
    /// The note as it is now.
    Current,
    /// An older revision.
    Revision(&'a Revision),
    /// An older version with no revision left to merge against.
    Lost,
}

/// What to write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EditPlan {
    /// The note gets this title and body (`outcome`: applied or merged).
    Save {
        title: String,
        body: String,
        outcome: EditOutcome,
    },
    /// The changes overlap: the note stays as it is and the edit's text is kept as a
    /// conflict copy with this title and body.
    Copy { title: String, body: String },
}

/// Decides what `edit` does to `current`, which it made from `base`.
pub fn plan_edit(current: &Note, base: Base<'_>, edit: &ValidNoteEdit) -> EditPlan {
    let merged = match base {
        Base::Current => {
            return EditPlan::Save {
                title: edit.title.clone().unwrap_or_else(|| current.title.clone()),
                body: edit.body.clone().unwrap_or_else(|| current.body.clone()),
                outcome: EditOutcome::Applied,
            };
        }
        Base::Revision(base) => three_way(
            Text {
                title: &base.title,
                body: &base.body,
            },
            Text {
                title: &current.title,
                body: &current.body,
            },
            Text {
                title: edit.title.as_deref().unwrap_or(&base.title),
                body: edit.body.as_deref().unwrap_or(&base.body),
            },
        ),
        // No revision to merge against: the safe side is a copy.
        Base::Lost => Merged::Overlap,
    };
    match merged {
        Merged::Clean { title, body } => EditPlan::Save {
            title,
            body,
            outcome: EditOutcome::Merged,
        },
        Merged::Overlap => EditPlan::Copy {
            title: edit.title.clone().unwrap_or_else(|| current.title.clone()),
            body: edit.body.clone().unwrap_or_else(|| current.body.clone()),
        },
    }
}

/// The title and body of the copy made for an edit of a note that was deleted for good
/// meanwhile: its text is kept as a note of its own.
pub fn plan_for_deleted(edit: &ValidNoteEdit) -> (String, String) {
    (
        edit.title.clone().unwrap_or_else(|| "Untitled".to_owned()),
        edit.body.clone().unwrap_or_default(),
    )
}

#[cfg(test)]
mod tests {
    use app::api::RevisionKind;

    use super::*;
    use crate::notes::changes::IfMatch;

    fn note(version: i64, title: &str, body: &str) -> Note {
        Note {
            id: "n".into(),
            title: title.into(),
            body: body.into(),
            written_at: "2026-12-01T00:00:00.000Z".into(),
            created_at: "2026-12-01T00:00:00.000Z".into(),
            updated_at: "2026-12-01T00:00:00.000Z".into(),
            version,
            trashed_at: None,
            conflict_of: None,
            tags: Vec::new(),
            pinned: false,
            html: None,
        }
    }

    fn revision(version: i64, title: &str, body: &str) -> Revision {
        Revision {
            version,
            title: title.into(),
            body: body.into(),
            created_at: "2026-12-01T00:00:00.000Z".into(),
            kind: RevisionKind::Edit,
        }
    }

    fn edit(title: Option<&str>, body: Option<&str>, base: i64) -> ValidNoteEdit {
        ValidNoteEdit {
            id: "n".into(),
            title: title.map(Into::into),
            body: body.map(Into::into),
            base_version: Some(base),
            if_match: IfMatch::Absent,
            written_at: "2026-12-01T00:00:00.000Z".into(),
        }
    }

    #[test]
    fn an_edit_from_the_current_version_is_applied_and_keeps_what_it_did_not_send() {
        let current = note(3, "Title", "line one\n");
        let edit = edit(None, Some("line two\n"), 3);
        assert_eq!(older_base(&current, &edit).unwrap(), None);
        assert_eq!(
            plan_edit(&current, Base::Current, &edit),
            EditPlan::Save {
                title: "Title".into(),
                body: "line two\n".into(),
                outcome: EditOutcome::Applied,
            }
        );
    }

    #[test]
    fn an_edit_from_an_older_version_names_the_version_to_merge_against() {
        let current = note(5, "T", "b");
        assert_eq!(
            older_base(&current, &edit(None, Some("x"), 2)).unwrap(),
            Some(2)
        );
    }

    #[test]
    fn an_edit_in_other_lines_than_the_changes_since_is_merged() {
        let base = revision(1, "T", "a\nb\nc\n");
        let current = note(2, "T", "A\nb\nc\n");
        let edit = edit(None, Some("a\nb\nC\n"), 1);
        assert_eq!(
            plan_edit(&current, Base::Revision(&base), &edit),
            EditPlan::Save {
                title: "T".into(),
                body: "A\nb\nC\n".into(),
                outcome: EditOutcome::Merged,
            }
        );
    }

    #[test]
    fn an_edit_of_the_same_lines_becomes_a_copy_with_the_edits_text() {
        let base = revision(1, "T", "a\n");
        let current = note(2, "T", "from elsewhere\n");
        let edit = edit(None, Some("from here\n"), 1);
        assert_eq!(
            plan_edit(&current, Base::Revision(&base), &edit),
            EditPlan::Copy {
                title: "T".into(),
                body: "from here\n".into(),
            }
        );
    }

    #[test]
    fn an_edit_whose_base_revision_is_gone_becomes_a_copy() {
        let current = note(4, "T", "now");
        let edit = edit(Some("Mine"), None, 1);
        assert_eq!(
            plan_edit(&current, Base::Lost, &edit),
            EditPlan::Copy {
                title: "Mine".into(),
                body: "now".into(),
            }
        );
    }

    #[test]
    fn an_edit_of_a_note_deleted_for_good_keeps_its_text_under_a_title() {
        assert_eq!(
            plan_for_deleted(&edit(None, Some("kept"), 1)),
            ("Untitled".to_owned(), "kept".to_owned())
        );
    }

    #[test]
    fn a_base_newer_than_the_note_is_refused() {
        let current = note(2, "T", "b");
        assert!(matches!(
            older_base(&current, &edit(None, Some("x"), 3)),
            Err(ApiError::ValidationFailed(_))
        ));
    }

    #[test]
    fn an_if_match_the_note_does_not_meet_is_412_with_the_note() {
        let current = note(2, "T", "b");
        let mut edit = edit(None, Some("x"), 1);
        edit.if_match = IfMatch::Version(1);
        match older_base(&current, &edit) {
            Err(ApiError::PreconditionFailed { current: sent }) => assert_eq!(*sent, current),
            other => panic!("expected 412, got {other:?}"),
        }
    }
}
