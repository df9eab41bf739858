//! Editing a note: the operation the idempotency pipeline runs once per key. It reads
//! what the decision needs, lets `edit_plan` decide, and writes what was decided.

use app::api::{EditAnswer, EditOutcome, Note, RevisionKind, TITLE_MAX_CHARS};

use super::changes::ValidNoteEdit;
use super::edit_plan::{Base, EditPlan, older_base, plan_edit, plan_for_deleted};
use crate::error::ApiError;
use crate::idempotency::{Fingerprint, IdempotencyKey, Operation, Outcome};
use crate::storage::{NewRevision, NoteWrites, PastWrite};
use crate::text::tags;
use crate::timestamp;

/// Editing a note (see `edit_plan` for what an edit does).
pub struct EditNote(pub ValidNoteEdit);

/// What an edit did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Edited {
    /// Applied, merged or kept as a conflict copy.
    Answer(Box<EditAnswer>),
    /// A late retry of an edit whose note was deleted for good since.
    DeletedElsewhere(String),
}

impl Edited {
    fn answer(answer: EditAnswer) -> Self {
        Edited::Answer(Box::new(answer))
    }
}

/// How a conflict copy's title says what it is, within the title's length limit.
const COPY_SUFFIX: &str = " (conflict copy)";

impl Operation for EditNote {
    type Done = Edited;

    fn fingerprint(&self) -> Fingerprint {
        self.0.fingerprint()
    }

    async fn apply<T: NoteWrites + Send>(
        &self,
        tx: &mut T,
        scope: &str,
        key: &IdempotencyKey,
    ) -> Result<Outcome<Edited>, ApiError> {
        let fingerprint = self.fingerprint();
        if let Some(past) = tx.earlier_write(scope, key, &fingerprint).await? {
            return Ok(Outcome::late(told_again(tx, scope, past).await?));
        }
        let edit = &self.0;
        let Some(current) = tx.note(scope, &edit.id).await? else {
            if !tx.is_purged(scope, &edit.id).await? {
                return Err(not_found(&edit.id));
            }
            let (title, body) = plan_for_deleted(edit);
            let copy = self
                .keep_copy(&title, body, tx, scope, key, &fingerprint)
                .await?;
            return Ok(Outcome::now(Edited::answer(EditAnswer {
                outcome: EditOutcome::ConflictCopy,
                note: None,
                copy: Some(copy),
            })));
        };
        let base_revision = match older_base(&current, edit)? {
            None => None,
            Some(version) => Some(tx.revision_at(scope, &edit.id, version).await?),
        };
        let base = match &base_revision {
            None => Base::Current,
            Some(Some(revision)) => Base::Revision(revision),
            Some(None) => Base::Lost,
        };
        let (title, body, outcome) = match plan_edit(&current, base, edit) {
            EditPlan::Save {
                title,
                body,
                outcome,
            } => (title, body, outcome),
            EditPlan::Copy { title, body } => {
                let copy = self
                    .keep_copy(&title, body, tx, scope, key, &fingerprint)
                    .await?;
                tracing::info!(note_id = %current.id, copy_id = %copy.id, "overlapping edit saved as a conflict copy");
                return Ok(Outcome::now(Edited::answer(EditAnswer {
                    outcome: EditOutcome::ConflictCopy,
                    note: Some(current),
                    copy: Some(copy),
                })));
            }
        };
        let note = Note {
            tags: tags::of_note(&title, &body),
            title,
            body,
            version: current.version + 1,
            updated_at: timestamp::format(timestamp::now()),
            ..current
        };
        let kind = match outcome {
            EditOutcome::Merged => RevisionKind::Merge,
            _ => RevisionKind::Edit,
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
        tracing::info!(note_id = %note.id, version = note.version, ?outcome, "note edited");
        Ok(Outcome::now(Edited::answer(EditAnswer {
            outcome,
            note: Some(note),
            copy: None,
        })))
    }
}

impl EditNote {
    /// Keeps a conflict copy with this text as a new note, linked to the one the edit
    /// was for, under the edit's key.
    async fn keep_copy<T: NoteWrites + Send>(
        &self,
        title: &str,
        body: String,
        tx: &mut T,
        scope: &str,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
    ) -> Result<Note, ApiError> {
        let copy = conflict_copy(&self.0, title, body);
        if tx.insert_note(scope, key, fingerprint, &copy).await? {
            Ok(copy)
        } else {
            // The key already made a note: a create used it.
            Err(ApiError::IdempotencyKeyReused)
        }
    }
}

/// The conflict copy of `edit`: a new note whose title says what it is.
fn conflict_copy(edit: &ValidNoteEdit, title: &str, body: String) -> Note {
    let now = timestamp::now();
    let at = timestamp::format(now);
    let room = TITLE_MAX_CHARS - COPY_SUFFIX.chars().count();
    let title: String = title.chars().take(room).collect();
    let title = format!("{}{COPY_SUFFIX}", title.trim_end());
    Note {
        id: uuid::Uuid::new_v4().to_string(),
        tags: tags::of_note(&title, &body),
        pinned: false,
        html: None,
        title,
        body,
        written_at: timestamp::believable_written_at(&edit.written_at, now),
        created_at: at.clone(),
        updated_at: at,
        version: 1,
        trashed_at: None,
        conflict_of: Some(edit.id.clone()),
    }
}

/// What an edit did, told again to a retry that came after its key's row expired.
async fn told_again<T: NoteWrites + Send>(
    tx: &mut T,
    scope: &str,
    past: PastWrite,
) -> Result<Edited, ApiError> {
    match past {
        PastWrite::Deleted { note_id, .. } => Ok(Edited::DeletedElsewhere(note_id)),
        PastWrite::Revision {
            note_id,
            kind: kind @ (RevisionKind::Edit | RevisionKind::Merge),
        } => Ok(Edited::answer(EditAnswer {
            outcome: if kind == RevisionKind::Merge {
                EditOutcome::Merged
            } else {
                EditOutcome::Applied
            },
            note: tx.note(scope, &note_id).await?,
            copy: None,
        })),
        PastWrite::Revision {
            note_id,
            kind: RevisionKind::Create,
        } => {
            let copy = tx.note(scope, &note_id).await?;
            let original = match copy.as_ref().and_then(|c| c.conflict_of.clone()) {
                Some(original) => tx.note(scope, &original).await?,
                None => return Err(ApiError::IdempotencyKeyReused),
            };
            Ok(Edited::answer(EditAnswer {
                outcome: EditOutcome::ConflictCopy,
                note: original,
                copy,
            }))
        }
        _ => Err(ApiError::IdempotencyKeyReused),
    }
}

/// 404 for a note that is not there.
pub fn not_found(id: &str) -> ApiError {
    ApiError::NotFound(format!("no note has the id {id:?}"))
}
