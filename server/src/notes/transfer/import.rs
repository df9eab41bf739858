//! `POST /api/import`: a zip made by `GET /api/export`, each note made again through the
//! ordinary idempotent create, with a key derived from the note's id — so importing the
//! same export twice adds nothing (the second time every create is a replay).
//!
//! The upload is spooled to local disk (with its files an export may hold a gigabyte),
//! then read and checked whole first (`export_reader::count_notes`; the files' declared
//! sizes against the room left, `declared_files`, before `exported_files` unpacks them),
//! keeping nothing: an export refused for its size, its entries, its shape, its number of
//! notes, a file that does not hash to its name or files past the person's quota imports
//! nothing. Its files are then stored (each unpacked to a spool file of its own and
//! inserted as an upload is: one transaction, counted against the quota, a file the person
//! has already left as it is), then its notes read a second time, a note at a time, on a
//! blocking thread that hands each note to this request over a short queue — so memory
//! holds a few notes and a piece of a file, never the export.

use std::collections::HashSet;
use std::io::BufReader;
use std::path::Path;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};

use app::api::{FileInfo, ImportProblem, ImportReport, NewNote, Note};

use super::export_reader::{self, cut};
use crate::accounts::session::SignedIn;
use crate::error::ApiError;
use crate::files::sniff::declared_type;
use crate::files::spool::SpoolFile;
use crate::files::upload::{Pace, receive, spool_failure};
use crate::http::body::require_zip;
use crate::idempotency::{self, IdempotencyKey};
use crate::notes::answers;
use crate::notes::changes::{IfMatch, Lifecycle, ValidLifecycle};
use crate::notes::create::CreateNote;
use crate::notes::lifecycle::ChangeLifecycle;
use crate::notes::new_note::ValidNewNote;
use crate::notes::pin::{PinNote, ValidPin};
use crate::state::AppState;
use crate::storage::files::FileInsert;
use crate::timestamp;

/// The largest export accepted for import, besides its files (which may add up to the
/// person's quota).
const IMPORT_MAX_BYTES: u64 = 64 * 1024 * 1024;
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
    let max = IMPORT_MAX_BYTES.saturating_add(state.config.file_quota_bytes);
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|length| length > max) {
        return Err(ApiError::PayloadTooLarge {
            limit: usize::try_from(max).unwrap_or(usize::MAX),
        });
    }
    let mut zip = state.uploads.spool.create().await.map_err(spool_failure)?;
    receive(
        body,
        &mut zip,
        max,
        state.config.body_timeout,
        Pace::of(&state.config),
    )
    .await?;
    let path = zip.path().to_owned();
    let (count, declared) = tokio::task::spawn_blocking(move || {
        let count = export_reader::count_notes(spooled(&path)?)?;
        let declared = export_reader::declared_files(spooled(&path)?)?;
        Ok::<_, ApiError>((count, declared))
    })
    .await
    .map_err(|e| ApiError::Internal(e.into()))??;
    // Files declared past the room left are refused before each is unpacked and hashed;
    // `import_files` checks again with the sizes counted.
    fits_in_quota(&state, &viewer.user_id, &declared).await?;
    let path = zip.path().to_owned();
    let max_file = state.config.file_max_bytes;
    let files = tokio::task::spawn_blocking(move || {
        export_reader::exported_files(spooled(&path)?, max_file)
    })
    .await
    .map_err(|e| ApiError::Internal(e.into()))??;
    let (files_imported, files_there) =
        import_files(&state, &viewer.user_id, zip.path(), files).await?;

    let path = zip.path().to_owned();
    let (notes, mut next) = tokio::sync::mpsc::channel::<Note>(READ_AHEAD);
    let reading = tokio::task::spawn_blocking(move || {
        export_reader::each_note(spooled(&path)?, |note| {
            // The request went away (the client left): stop reading.
            notes.blocking_send(note).map_err(|_| {
                ApiError::Internal(anyhow::anyhow!("the import stopped before its end"))
            })
        })
    });
    let mut result = ImportReport {
        kind: "oncenote".into(),
        files: files_imported,
        ..ImportReport::default()
    };
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
        files_imported,
        files_there,
        "import done"
    );
    // The spool file of the export is removed here, as `zip` goes.
    drop(zip);
    Ok(axum::Json(result).into_response())
}

/// The spooled export, to read (each reading opens it afresh).
fn spooled(path: &Path) -> Result<BufReader<std::fs::File>, ApiError> {
    std::fs::File::open(path)
        .map(BufReader::new)
        .map_err(|e| ApiError::Internal(anyhow::Error::new(e).context("reading a spooled import")))
}

/// 413 `quota-exceeded` if the files the person does not have yet would not fit in the
/// room they have left; returns those files.
async fn fits_in_quota(
    state: &AppState,
    scope: &str,
    files: &[FileInfo],
) -> Result<Vec<FileInfo>, ApiError> {
    if files.is_empty() {
        return Ok(Vec::new());
    }
    let quota = state.config.file_quota_bytes;
    let (stored, used) = state.store.files().files_of(scope).await?;
    let had: HashSet<String> = stored.into_iter().map(|f| f.sha256).collect();
    let new: Vec<FileInfo> = files
        .iter()
        .filter(|f| !had.contains(&f.sha256))
        .cloned()
        .collect();
    let new_bytes = new.iter().fold(0u64, |sum, f| sum.saturating_add(f.size));
    if used.saturating_add(new_bytes) > quota {
        return Err(ApiError::QuotaExceeded {
            size: new_bytes,
            used,
            quota,
        });
    }
    Ok(new)
}

/// Stores the export's files the person does not have yet, after checking that they fit
/// in the quota (413 `quota-exceeded`, nothing stored, if not). Each is unpacked on a
/// blocking thread into a spool file of its own and inserted as an upload is; a file the
/// person has already (an earlier import of the same export) is left as it is — so an
/// import is exactly once for files too. Returns how many were stored and how many the
/// person had.
async fn import_files(
    state: &AppState,
    scope: &str,
    zip: &Path,
    files: Vec<FileInfo>,
) -> Result<(usize, usize), ApiError> {
    if files.is_empty() {
        return Ok((0, 0));
    }
    let new = fits_in_quota(state, scope, &files).await?;
    let there = files.len() - new.len();
    let quota = state.config.file_quota_bytes;
    let (unpacked, mut next) = tokio::sync::mpsc::channel::<(FileInfo, SpoolFile, u64)>(1);
    let (zip, max_file) = (zip.to_owned(), state.config.file_max_bytes);
    let spool = state.uploads.spool.clone();
    let runtime = tokio::runtime::Handle::current();
    let unpacking = tokio::task::spawn_blocking(move || {
        let mut archive = export_reader::ExportFiles::open(spooled(&zip)?)?;
        for file in new {
            let mut spooled_file = runtime.block_on(spool.create()).map_err(spool_failure)?;
            runtime
                .block_on(spooled_file.finish())
                .map_err(spool_failure)?;
            let mut out = std::fs::OpenOptions::new()
                .write(true)
                .open(spooled_file.path())
                .map_err(spool_failure)?;
            let size = archive.extract(&file.sha256, max_file, &mut out)?;
            drop(out);
            if unpacked.blocking_send((file, spooled_file, size)).is_err() {
                // The request went away: stop unpacking.
                break;
            }
        }
        Ok::<_, ApiError>(())
    });
    let now = timestamp::format(timestamp::now());
    let mut imported = 0;
    while let Some((file, spooled_file, size)) = next.recv().await {
        let content_type = declared_type(Some(&file.content_type));
        let inserted = state
            .store
            .files()
            .insert_file(
                scope,
                &file.sha256,
                size,
                &content_type,
                spooled_file.path(),
                quota,
                &now,
            )
            .await?;
        match inserted {
            FileInsert::Stored(_) => imported += 1,
            FileInsert::AlreadyThere(_) => {}
            FileInsert::OverQuota { used, quota } => {
                return Err(ApiError::QuotaExceeded { size, used, quota });
            }
        }
    }
    unpacking
        .await
        .map_err(|e| ApiError::Internal(e.into()))??;
    Ok((imported, there))
}

/// A note that could not be made, as the client is told: the start of its title and why.
/// A server failure is told in general terms; what it was goes to the log.
fn failure(index: usize, note: &Note, error: &ApiError) -> ImportProblem {
    let name = cut(&note.title, TITLE_QUOTED_CHARS);
    if error.status_and_slug().0.is_server_error() {
        tracing::warn!(
            index,
            note_id = %cut(&note.id, 80),
            error = ?error,
            "a note could not be imported"
        );
        return ImportProblem {
            name,
            reason: "the server could not save it; import the file again to retry".into(),
        };
    }
    ImportProblem {
        name,
        reason: cut(&error.to_string(), 200),
    }
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
