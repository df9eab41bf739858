//! Pinning a note (or unpinning it): `PATCH /api/notes/{id}` with `pinned` alone. It needs
//! no precondition — a pin changes no text, so it cannot undo anyone's edit — and, like
//! every write, adds a version and a revision (`pin` / `unpin`) under its key.

use app::api::{NOTES_PATH, Note, RevisionKind};

use super::changes::IfMatch;
use super::edit::not_found;
use crate::error::ApiError;
use crate::idempotency::{Fingerprint, IdempotencyKey, Operation, Outcome};
use crate::storage::{NewRevision, NoteWrites, PastWrite};
use crate::timestamp;

/// A valid pin or unpin of one note.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidPin {
    pub id: String,
    pub pinned: bool,
    /// Optional: a client that sends `If-Match` gets 412 if the note moved on.
    pub if_match: IfMatch,
    pub written_at: String,
}

impl ValidPin {
    /// The fingerprint of this `PATCH` (another shape than an edit's: the two never match).
    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(
            "PATCH",
            &format!("{NOTES_PATH}/{}", self.id),
            &[
                if self.pinned { "pin" } else { "unpin" },
                &self.if_match.canonical(),
                &self.written_at,
            ],
        )
    }
}

/// Pinning or unpinning a note.
pub struct PinNote(pub ValidPin);

/// What a pin did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pinned {
    /// The note as it now is.
    Note(Box<Note>),
    /// A late retry of a pin whose note was deleted for good since.
    DeletedElsewhere(String),
}

/// The note after `request`, or 412 with the note if it does not meet `If-Match`.
pub fn plan_pin(current: &Note, request: &ValidPin, now: &str) -> Result<Note, ApiError> {
    if !request.if_match.allows(current.version) {
        return Err(ApiError::PreconditionFailed {
            current: Box::new(current.clone()),
        });
    }
    Ok(Note {
        pinned: request.pinned,
        version: current.version + 1,
        updated_at: now.to_owned(),
        ..current.clone()
    })
}

impl Operation for PinNote {
    type Done = Pinned;

    fn fingerprint(&self) -> Fingerprint {
        self.0.fingerprint()
    }

    async fn apply<T: NoteWrites + Send>(
        &self,
        tx: &mut T,
        scope: &str,
        key: &IdempotencyKey,
    ) -> Result<Outcome<Pinned>, ApiError> {
        let fingerprint = self.fingerprint();
        let request = &self.0;
        if let Some(past) = tx.earlier_write(scope, key, &fingerprint).await? {
            let pinned = match past {
                PastWrite::Deleted { note_id, .. } => Pinned::DeletedElsewhere(note_id),
                PastWrite::Revision {
                    note_id,
                    kind: RevisionKind::Pin | RevisionKind::Unpin,
                } => match tx.note(scope, &note_id).await? {
                    Some(note) => Pinned::Note(Box::new(note)),
                    None => return Err(not_found(&note_id)),
                },
                _ => return Err(ApiError::IdempotencyKeyReused),
            };
            return Ok(Outcome::late(pinned));
        }
        let Some(current) = tx.note(scope, &request.id).await? else {
            return Err(not_found(&request.id));
        };
        let note = plan_pin(&current, request, &timestamp::format(timestamp::now()))?;
        let kind = if note.pinned {
            RevisionKind::Pin
        } else {
            RevisionKind::Unpin
        };
        tx.save_note(
            scope,
            &note,
            NewRevision {
                version: note.version,
                kind,
                key,
                fingerprint: &fingerprint,
            },
        )
        .await?;
        tracing::info!(note_id = %note.id, version = note.version, ?kind, "note pinned");
        Ok(Outcome::now(Pinned::Note(Box::new(note))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note() -> Note {
        Note {
            id: "n".into(),
            title: "T".into(),
            body: "b #x".into(),
            written_at: "w".into(),
            created_at: "c".into(),
            updated_at: "u".into(),
            version: 4,
            trashed_at: None,
            conflict_of: None,
            tags: vec!["x".into()],
            pinned: false,
            html: None,
        }
    }

    fn pin(pinned: bool, if_match: IfMatch) -> ValidPin {
        ValidPin {
            id: "n".into(),
            pinned,
            if_match,
            written_at: "2026-12-01T00:00:00.000Z".into(),
        }
    }

    #[test]
    fn a_pin_adds_a_version_and_keeps_the_text() {
        let pinned = plan_pin(&note(), &pin(true, IfMatch::Absent), "now").unwrap();
        assert!(pinned.pinned);
        assert_eq!(pinned.version, 5);
        assert_eq!((pinned.title.as_str(), pinned.body.as_str()), ("T", "b #x"));
        assert_eq!(pinned.tags, ["x"]);
        let again = plan_pin(&pinned, &pin(false, IfMatch::Version(5)), "later").unwrap();
        assert!(!again.pinned);
        assert_eq!(again.version, 6);
    }

    #[test]
    fn a_pin_that_names_another_version_is_412_with_the_note() {
        match plan_pin(&note(), &pin(true, IfMatch::Version(3)), "now") {
            Err(ApiError::PreconditionFailed { current }) => assert_eq!(*current, note()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_pin_and_an_edit_of_the_same_note_never_share_a_fingerprint() {
        assert_ne!(
            pin(true, IfMatch::Absent).fingerprint(),
            pin(false, IfMatch::Absent).fingerprint()
        );
    }
}
