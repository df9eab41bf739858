//! The writes a client can make, each an [`Operation`] the idempotency pipeline runs
//! exactly once per key. The logic is written once, against the storage traits, for
//! every database.

use axum::http::StatusCode;

use app::api::{NOTES_PATH, Note};

use super::new_note::ValidNewNote;
use crate::error::ApiError;
use crate::idempotency::{Applied, Fingerprint, IdempotencyKey, Operation, StoredAnswer};
use crate::storage::NoteWrites;

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
