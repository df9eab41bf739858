//! The writes a client can make, each an [`Operation`] the idempotency pipeline runs
//! exactly once per key. The logic is written once, against the storage traits, for
//! every database.

use axum::http::StatusCode;

use app::api::{
    EditAnswer, EditOutcome, NOTES_PATH, Note, NoteAnswer, RevisionKind, TITLE_MAX_CHARS,
};

use super::changes::{Lifecycle, ValidLifecycle, ValidNoteEdit};
use super::merge::{Merged, Text, three_way};
use super::new_note::ValidNewNote;
use crate::error::ApiError;
use crate::idempotency::{Applied, Fingerprint, IdempotencyKey, Operation, StoredAnswer};
use crate::storage::{NewRevision, NoteWrites, PastWrite};
use crate::timestamp;

/// Creating a note.
pub struct CreateNote {
    pub note: ValidNewNote,
    pub reply: CreateReply,
}

/// How a create is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CreateReply {
    /// The API: 201 with the note as JSON.
    Json,
    /// The page's form without JavaScript: 303 back to the page (post/redirect/get).
    RedirectHome,
}

impl Operation for CreateNote {
    fn fingerprint(&self) -> Fingerprint {
        match self.reply {
            CreateReply::Json => self.note.fingerprint(),
            // A form has no `written_at` of its own (the server stamps it), so a resent
            // form is the same request when its title and body are.
            CreateReply::RedirectHome => Fingerprint::of(
                "POST",
                app::api::FORM_PATH,
                &[&self.note.title, &self.note.body],
            ),
        }
    }

    async fn apply<T: NoteWrites + Send>(
        &self,
        tx: &mut T,
        scope: &str,
        key: &IdempotencyKey,
    ) -> Result<Applied, ApiError> {
        let fingerprint = self.fingerprint();
        // A key that an edit, a move or a delete for good recorded (its idempotency row
        // expired since) is not this create's to use. Its note's first revision carries a
        // create's key too; that case is the insert's conflict below.
        match tx.past_write(scope, key).await? {
            None
            | Some((
                PastWrite::Revision {
                    kind: RevisionKind::Create,
                    ..
                },
                _,
            )) => {}
            // This create was done, and its note deleted for good since: told so, and
            // nothing is made again.
            Some((
                PastWrite::Deleted {
                    note_id,
                    kind: RevisionKind::Create,
                },
                by,
            )) if by == fingerprint => {
                tracing::info!(%note_id, "late retry of a create whose note was deleted for good");
                return Ok(Applied {
                    answer: deleted_elsewhere(note_id)?,
                    late: true,
                });
            }
            Some(_) => return Err(ApiError::IdempotencyKeyReused),
        }
        let note = self.note.to_note();
        if tx.insert_note(scope, key, &fingerprint, &note).await? {
            tracing::info!(note_id = %note.id, "note saved");
            return Ok(Applied {
                answer: self.answer(StatusCode::CREATED, &note)?,
                late: false,
            });
        }
        // The key's idempotency row had expired while the note (which carries its key)
        // stayed: a late retry gets the existing note, never a second one.
        let Some((existing, created_by)) = tx.note_created_by(scope, key).await? else {
            return Err(ApiError::Internal(anyhow::anyhow!(
                "the note insert conflicted but no note has the key"
            )));
        };
        if created_by != fingerprint {
            return Err(ApiError::IdempotencyKeyReused);
        }
        tracing::info!(note_id = %existing.id, "late retry after expiry: answered with the existing note");
        Ok(Applied {
            answer: self.answer(StatusCode::OK, &existing)?,
            late: true,
        })
    }
}

impl CreateNote {
    fn answer(&self, status: StatusCode, note: &Note) -> Result<StoredAnswer, ApiError> {
        match self.reply {
            CreateReply::Json => StoredAnswer::json(status, note, note_headers(note)),
            CreateReply::RedirectHome => Ok(StoredAnswer::empty(
                StatusCode::SEE_OTHER,
                vec![("Location".into(), "/".into())],
            )),
        }
    }
}

/// `Location` and `ETag` of an answer about one note.
pub fn note_headers(note: &Note) -> Vec<(String, String)> {
    vec![
        ("Location".into(), format!("{NOTES_PATH}/{}", note.id)),
        ("ETag".into(), etag(note)),
    ]
}

/// A note's version as a strong entity tag: `"3"`.
pub fn etag(note: &Note) -> String {
    format!("\"{}\"", note.version)
}

/// Editing a note: applied when the note is still at the version the edit started from,
/// merged line by line when it changed elsewhere in other lines, or saved as a conflict
/// copy when the changes overlap (or the note was deleted for good) — the text of an edit
/// is never dropped.
pub struct EditNote(pub ValidNoteEdit);

/// How a conflict copy's title says what it is, within the title's length limit.
const COPY_SUFFIX: &str = " (conflict copy)";

impl Operation for EditNote {
    fn fingerprint(&self) -> Fingerprint {
        self.0.fingerprint()
    }

    async fn apply<T: NoteWrites + Send>(
        &self,
        tx: &mut T,
        scope: &str,
        key: &IdempotencyKey,
    ) -> Result<Applied, ApiError> {
        let fingerprint = self.fingerprint();
        if let Some((past, by)) = tx.past_write(scope, key).await? {
            if by != fingerprint {
                return Err(ApiError::IdempotencyKeyReused);
            }
            if let PastWrite::Deleted { note_id, .. } = past {
                return Ok(Applied {
                    answer: deleted_elsewhere(note_id)?,
                    late: true,
                });
            }
            let answer = late_edit_answer(tx, scope, past).await?;
            return Ok(Applied {
                answer: edit_answer(&answer)?,
                late: true,
            });
        }
        let edit = &self.0;
        let now = timestamp::format(timestamp::now());
        let Some(current) = tx.note(scope, &edit.id).await? else {
            if !tx.is_purged(scope, &edit.id).await? {
                return Err(not_found(&edit.id));
            }
            // Deleted for good meanwhile: the edit's text is kept as a note of its own.
            let title = edit.title.as_deref().unwrap_or("Untitled");
            let body = edit.body.as_deref().unwrap_or("");
            let copy = self.copy(title, body, &now);
            insert_copy(tx, scope, key, &fingerprint, &copy).await?;
            return Ok(Applied {
                answer: edit_answer(&EditAnswer {
                    outcome: EditOutcome::ConflictCopy,
                    note: None,
                    copy: Some(copy),
                })?,
                late: false,
            });
        };
        if !edit.if_match.allows(current.version) {
            return Err(ApiError::PreconditionFailed {
                current: Box::new(current),
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
        let (outcome, title, body) = if base == current.version {
            let title = edit.title.clone().unwrap_or_else(|| current.title.clone());
            let body = edit.body.clone().unwrap_or_else(|| current.body.clone());
            (EditOutcome::Applied, title, body)
        } else {
            let merged = match tx.revision_at(scope, &edit.id, base).await? {
                Some(base) => {
                    let incoming = Text {
                        title: edit.title.as_deref().unwrap_or(&base.title),
                        body: edit.body.as_deref().unwrap_or(&base.body),
                    };
                    three_way(
                        Text {
                            title: &base.title,
                            body: &base.body,
                        },
                        Text {
                            title: &current.title,
                            body: &current.body,
                        },
                        incoming,
                    )
                }
                // No revision to merge against: the safe side is a copy.
                None => Merged::Overlap,
            };
            match merged {
                Merged::Clean { title, body } => (EditOutcome::Merged, title, body),
                Merged::Overlap => {
                    let title = edit.title.as_deref().unwrap_or(&current.title);
                    let body = edit.body.as_deref().unwrap_or(&current.body);
                    let copy = self.copy(title, body, &now);
                    insert_copy(tx, scope, key, &fingerprint, &copy).await?;
                    tracing::info!(note_id = %current.id, copy_id = %copy.id, "overlapping edit saved as a conflict copy");
                    return Ok(Applied {
                        answer: edit_answer(&EditAnswer {
                            outcome: EditOutcome::ConflictCopy,
                            note: Some(current),
                            copy: Some(copy),
                        })?,
                        late: false,
                    });
                }
            }
        };
        let note = Note {
            title,
            body,
            version: current.version + 1,
            updated_at: now,
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
        Ok(Applied {
            answer: edit_answer(&EditAnswer {
                outcome,
                note: Some(note),
                copy: None,
            })?,
            late: false,
        })
    }
}

impl EditNote {
    /// The conflict copy of this edit: a new note, linked to the one it was for.
    fn copy(&self, title: &str, body: &str, now: &str) -> Note {
        let room = TITLE_MAX_CHARS - COPY_SUFFIX.chars().count();
        let title: String = title.chars().take(room).collect();
        Note {
            id: uuid::Uuid::new_v4().to_string(),
            title: format!("{}{COPY_SUFFIX}", title.trim_end()),
            body: body.to_owned(),
            written_at: timestamp::believable_written_at(&self.0.written_at, timestamp::now()),
            created_at: now.to_owned(),
            updated_at: now.to_owned(),
            version: 1,
            trashed_at: None,
            conflict_of: Some(self.0.id.clone()),
        }
    }
}

async fn insert_copy<T: NoteWrites + Send>(
    tx: &mut T,
    scope: &str,
    key: &IdempotencyKey,
    fingerprint: &Fingerprint,
    copy: &Note,
) -> Result<(), ApiError> {
    if tx.insert_note(scope, key, fingerprint, copy).await? {
        Ok(())
    } else {
        // The key already made a note: a create used it.
        Err(ApiError::IdempotencyKeyReused)
    }
}

/// What an edit did, told again to a retry that came after its key's row expired.
async fn late_edit_answer<T: NoteWrites + Send>(
    tx: &mut T,
    scope: &str,
    past: PastWrite,
) -> Result<EditAnswer, ApiError> {
    match past {
        PastWrite::Revision {
            note_id,
            kind: kind @ (RevisionKind::Edit | RevisionKind::Merge),
        } => Ok(EditAnswer {
            outcome: if kind == RevisionKind::Merge {
                EditOutcome::Merged
            } else {
                EditOutcome::Applied
            },
            note: tx.note(scope, &note_id).await?,
            copy: None,
        }),
        PastWrite::Revision {
            note_id,
            kind: RevisionKind::Create,
        } => {
            let copy = tx.note(scope, &note_id).await?;
            let original = match copy.as_ref().and_then(|c| c.conflict_of.clone()) {
                Some(original) => tx.note(scope, &original).await?,
                None => return Err(ApiError::IdempotencyKeyReused),
            };
            Ok(EditAnswer {
                outcome: EditOutcome::ConflictCopy,
                note: original,
                copy,
            })
        }
        _ => Err(ApiError::IdempotencyKeyReused),
    }
}

fn edit_answer(answer: &EditAnswer) -> Result<StoredAnswer, ApiError> {
    let about = answer.note.as_ref().or(answer.copy.as_ref());
    StoredAnswer::json(
        StatusCode::OK,
        answer,
        about.map(note_headers).unwrap_or_default(),
    )
}

fn not_found(id: &str) -> ApiError {
    ApiError::NotFound(format!("no note has the id {id:?}"))
}

/// Moving a note to the trash, out of it, or deleting it for good.
pub struct ChangeLifecycle(pub ValidLifecycle);

impl Operation for ChangeLifecycle {
    fn fingerprint(&self) -> Fingerprint {
        self.0.fingerprint()
    }

    async fn apply<T: NoteWrites + Send>(
        &self,
        tx: &mut T,
        scope: &str,
        key: &IdempotencyKey,
    ) -> Result<Applied, ApiError> {
        let fingerprint = self.fingerprint();
        let request = &self.0;
        if let Some((past, by)) = tx.past_write(scope, key).await? {
            if by != fingerprint {
                return Err(ApiError::IdempotencyKeyReused);
            }
            let answer = match past {
                PastWrite::Purge { .. } => purged(),
                PastWrite::Deleted { note_id, .. } => deleted_elsewhere(note_id)?,
                PastWrite::Revision { note_id, .. } => match tx.note(scope, &note_id).await? {
                    Some(note) => note_answer(&note)?,
                    None => return Err(not_found(&note_id)),
                },
            };
            return Ok(Applied { answer, late: true });
        }
        let Some(current) = tx.note(scope, &request.id).await? else {
            // Deleting for good what is already gone is done.
            if request.change == Lifecycle::Purge && tx.is_purged(scope, &request.id).await? {
                return Ok(Applied {
                    answer: purged(),
                    late: false,
                });
            }
            return Err(not_found(&request.id));
        };
        if !request.if_match.allows(current.version) {
            return Err(ApiError::PreconditionFailed {
                current: Box::new(current),
            });
        }
        let now = timestamp::format(timestamp::now());
        let (trashed_at, kind) = match request.change {
            Lifecycle::Purge => {
                tx.purge(scope, &request.id, key, &fingerprint, &now)
                    .await?;
                tracing::info!(note_id = %request.id, "note deleted for good");
                return Ok(Applied {
                    answer: purged(),
                    late: false,
                });
            }
            // Already where it was asked to go: nothing to write.
            Lifecycle::Trash if current.trashed_at.is_some() => {
                return Ok(Applied {
                    answer: note_answer(&current)?,
                    late: false,
                });
            }
            Lifecycle::Restore if current.trashed_at.is_none() => {
                return Ok(Applied {
                    answer: note_answer(&current)?,
                    late: false,
                });
            }
            Lifecycle::Trash => (Some(now.clone()), RevisionKind::Trash),
            Lifecycle::Restore => (None, RevisionKind::Restore),
        };
        let note = Note {
            trashed_at,
            version: current.version + 1,
            updated_at: now,
            ..current
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
        tracing::info!(note_id = %note.id, ?kind, "note moved");
        Ok(Applied {
            answer: note_answer(&note)?,
            late: false,
        })
    }
}

fn note_answer(note: &Note) -> Result<StoredAnswer, ApiError> {
    StoredAnswer::json(
        StatusCode::OK,
        &NoteAnswer { note: note.clone() },
        note_headers(note),
    )
}

/// The answer to a late retry of a write that was done before its note was deleted for
/// good elsewhere: 410 `deleted-elsewhere`, kept with the key like any answer.
fn deleted_elsewhere(note_id: String) -> Result<StoredAnswer, ApiError> {
    StoredAnswer::problem(&ApiError::DeletedElsewhere(note_id))
}

fn purged() -> StoredAnswer {
    StoredAnswer::empty(StatusCode::NO_CONTENT, Vec::new())
}
