//! `POST /api/import`: a zip made by `GET /api/export`, each note made again through the
//! ordinary idempotent create, with a key derived from the note's id — so importing the
//! same export twice adds nothing (the second time every create is a replay).
//!
//! The whole export is read and checked first (`export_reader::count_notes`), keeping no
//! note: an export refused for its size, its entries, its shape or its number of notes
//! imports nothing. It is then read a second time, a note at a time, on a blocking thread
//! that hands each note to this request over a short queue — so memory holds a few notes,
//! never the export.

use axum::body::Body;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};

use app::api::{ImportReport, NewNote, Note};

use super::export_reader::{self, cut};
use crate::accounts::session::SignedIn;
use crate::error::ApiError;
use crate::http::body::{read_at_most, require_zip};
use crate::idempotency::{self, IdempotencyKey};
use crate::notes::answers;
use crate::notes::changes::{IfMatch, Lifecycle, ValidLifecycle};
use crate::notes::create::CreateNote;
use crate::notes::lifecycle::ChangeLifecycle;
use crate::notes::new_note::ValidNewNote;
use crate::notes::pin::{PinNote, ValidPin};
use crate::state::AppState;

/// The largest export accepted for import.
const IMPORT_MAX_BYTES: usize = 64 * 1024 * 1024;
/// Notes read ahead of the one being imported.
const READ_AHEAD: usize = 8;
/// How much of a title a failure quotes.
const TITLE_QUOTED_CHARS: usize = 80;

/// How many imports may run at once on one server.
const IMPORTS_AT_ONCE: usize = 2;

/// `POST /api/import` with a zip made by `GET /api/export`.
pub async fn upload(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    require_zip(&headers)?;
    // A few imports at once, server-wide: each holds its upload and reads ahead, so
    // parallel imports would add up. Past that, 503 with Retry-After (try again).
    static RUNNING: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(IMPORTS_AT_ONCE);
    let _running = RUNNING
        .try_acquire()
        .map_err(|_| ApiError::TooManyImports)?;
    let zip = read_at_most(
        &headers,
        body,
        state.config.body_timeout * 4,
        IMPORT_MAX_BYTES,
    )
    .await?;
    let checked = zip.clone();
    let count = tokio::task::spawn_blocking(move || export_reader::count_notes(&checked))
        .await
        .map_err(|e| ApiError::Internal(e.into()))??;

    let (notes, mut next) = tokio::sync::mpsc::channel::<Note>(READ_AHEAD);
    let reading = tokio::task::spawn_blocking(move || {
        export_reader::each_note(&zip, |note| {
            // The request went away (the client left): stop reading.
            notes.blocking_send(note).map_err(|_| {
                ApiError::Internal(anyhow::anyhow!("the import stopped before its end"))
            })
        })
    });
    let mut result = ImportReport::default();
    let mut index = 0;
    while let Some(note) = next.recv().await {
        index += 1;
        match import_one(&state, &viewer.user_id, &note).await {
            Ok(true) => result.imported += 1,
            Ok(false) => result.already_there += 1,
            Err(error) => result.failed.push(failure(index, &note, &error)),
        }
    }
    // What the first reading accepted, the second reads the same way.
    reading.await.map_err(|e| ApiError::Internal(e.into()))??;
    tracing::info!(
        notes = count,
        imported = result.imported,
        already_there = result.already_there,
        failed = result.failed.len(),
        "import done"
    );
    Ok(axum::Json(result).into_response())
}

/// A note that could not be made, as the client is told: the start of its title and why.
/// A server failure is told in general terms; what it was goes to the log.
fn failure(index: usize, note: &Note, error: &ApiError) -> String {
    let title = cut(&note.title, TITLE_QUOTED_CHARS);
    if error.status_and_slug().0.is_server_error() {
        tracing::warn!(
            index,
            note_id = %cut(&note.id, 80),
            error = ?error,
            "a note could not be imported"
        );
        return format!("{title:?}: the server could not save it; import the file again to retry");
    }
    format!("{title:?}: {}", cut(&error.to_string(), 200))
}

/// Makes one exported note again (and moves it to the trash if it was there). True if it
/// is new, false if an earlier import made it.
async fn import_one(state: &AppState, scope: &str, note: &Note) -> Result<bool, ApiError> {
    let key = IdempotencyKey::parse(&format!("import-{}", note.id))?;
    let valid = ValidNewNote::parse(NewNote {
        title: note.title.clone(),
        body: note.body.clone(),
        written_at: note.written_at.clone(),
    })?;
    // The answer's html, rendered before the transaction (see `rendered`).
    crate::notes::rendered::warm(&valid.body);
    let create = CreateNote::from_api(valid);
    let pipeline = state.pipeline();
    let answer = idempotency::execute(pipeline, scope, &key, create, answers::created).await?;
    let made: Note =
        serde_json::from_slice(&answer.stored.body).map_err(|e| ApiError::Internal(e.into()))?;
    if note.trashed_at.is_some() {
        let trash = ChangeLifecycle(ValidLifecycle {
            id: made.id.clone(),
            change: Lifecycle::Trash,
            if_match: IfMatch::Absent,
        });
        let key = IdempotencyKey::parse(&format!("import-trash-{}", note.id))?;
        idempotency::execute(pipeline, scope, &key, trash, answers::moved).await?;
    }
    if note.pinned {
        let pin = PinNote(ValidPin {
            id: made.id.clone(),
            pinned: true,
            if_match: IfMatch::Absent,
            written_at: made.written_at.clone(),
        });
        let key = IdempotencyKey::parse(&format!("import-pin-{}", note.id))?;
        idempotency::execute(pipeline, scope, &key, pin, answers::pinned).await?;
    }
    Ok(!answer.replayed)
}
