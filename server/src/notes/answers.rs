//! How what a write did is told over HTTP — status, `Location`, `ETag` and body — as the
//! answer kept with its key (the routes hand these to `idempotency::execute`). Every note
//! an answer tells about carries its rendered body (`rendered::with_html`).

use axum::http::StatusCode;

use app::api::{EditAnswer, NOTES_PATH, Note, NoteAnswer};

use super::create::Created;
use super::edit::Edited;
use super::lifecycle::Moved;
use super::patch::Patched;
use super::pin::Pinned;
use super::rendered::with_html;
use crate::error::ApiError;
use crate::idempotency::StoredAnswer;

/// A create sent to the API: 201 with the note (200 for a late retry of a create that was
/// done), `Location` and `ETag`.
pub fn created(created: &Created) -> Result<StoredAnswer, ApiError> {
    match created {
        Created::Made(note) => json(StatusCode::CREATED, &with_html(note), note_headers(note)),
        Created::Existing(note) => json(StatusCode::OK, &with_html(note), note_headers(note)),
        Created::DeletedElsewhere(id) => deleted_elsewhere(id),
    }
}

/// A create sent by the page's form without JavaScript: 303 back to the page
/// (post/redirect/get).
pub fn created_from_form(created: &Created) -> Result<StoredAnswer, ApiError> {
    match created {
        Created::Made(_) | Created::Existing(_) => Ok(StoredAnswer::empty(
            StatusCode::SEE_OTHER,
            vec![("Location".into(), "/".into())],
        )),
        Created::DeletedElsewhere(id) => deleted_elsewhere(id),
    }
}

/// An edit: 200 with what it did, about the note (or the copy, if the note is gone).
pub fn edited(edited: &Edited) -> Result<StoredAnswer, ApiError> {
    match edited {
        Edited::Answer(answer) => {
            let about = answer.note.as_ref().or(answer.copy.as_ref());
            let told = EditAnswer {
                outcome: answer.outcome,
                note: answer.note.as_ref().map(with_html),
                copy: answer.copy.as_ref().map(with_html),
            };
            json(
                StatusCode::OK,
                &told,
                about.map(note_headers).unwrap_or_default(),
            )
        }
        Edited::DeletedElsewhere(id) => deleted_elsewhere(id),
    }
}

/// A `PATCH`: an edit's answer, or a pin's.
pub fn patched(patched: &Patched) -> Result<StoredAnswer, ApiError> {
    match patched {
        Patched::Edited(done) => edited(done),
        Patched::Pinned(done) => pinned(done),
    }
}

/// A pin: 200 with the note.
pub fn pinned(pinned: &Pinned) -> Result<StoredAnswer, ApiError> {
    match pinned {
        Pinned::Note(note) => json(
            StatusCode::OK,
            &NoteAnswer {
                note: with_html(note),
            },
            note_headers(note),
        ),
        Pinned::DeletedElsewhere(id) => deleted_elsewhere(id),
    }
}

/// A move: 200 with the note, or 204 for a delete for good.
pub fn moved(moved: &Moved) -> Result<StoredAnswer, ApiError> {
    match moved {
        Moved::Note(note) => json(
            StatusCode::OK,
            &NoteAnswer {
                note: with_html(note),
            },
            note_headers(note),
        ),
        Moved::Purged => Ok(StoredAnswer::empty(StatusCode::NO_CONTENT, Vec::new())),
        Moved::DeletedElsewhere(id) => deleted_elsewhere(id),
    }
}

/// `Location` and `ETag` of an answer about one note.
fn note_headers(note: &Note) -> Vec<(String, String)> {
    vec![
        ("Location".into(), format!("{NOTES_PATH}/{}", note.id)),
        ("ETag".into(), etag(note)),
    ]
}

/// A note's version as a strong entity tag: `"3"`.
pub fn etag(note: &Note) -> String {
    format!("\"{}\"", note.version)
}

/// The answer to a late retry of a write that was done before its note was deleted for
/// good elsewhere: 410 `deleted-elsewhere`, kept with the key like any answer.
fn deleted_elsewhere(note_id: &str) -> Result<StoredAnswer, ApiError> {
    let problem = ApiError::DeletedElsewhere(note_id.to_owned()).problem();
    let body = serde_json::to_vec(&problem).map_err(|e| ApiError::Internal(e.into()))?;
    Ok(StoredAnswer {
        status: problem.status,
        headers: vec![("Content-Type".into(), "application/problem+json".into())],
        body,
    })
}

/// A JSON answer.
fn json(
    status: StatusCode,
    value: &impl serde::Serialize,
    headers: Vec<(String, String)>,
) -> Result<StoredAnswer, ApiError> {
    StoredAnswer::json(status, value, headers).map_err(|e| ApiError::Internal(e.into()))
}
