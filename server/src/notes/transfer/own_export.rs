//! An oncenote export made again into notes: each note through the ordinary idempotent
//! create, with a key derived from the note's id — so importing the same export twice adds
//! nothing (the second time every create is a replay).
//!
//! The export is read and checked whole first (`export_reader::count_notes`; the files'
//! declared sizes against the room left, `declared_files`, before `exported_files` unpacks
//! them), keeping nothing: an export refused for its size, its entries, its shape, its
//! number of notes, a file that does not hash to its name or files past the person's quota
//! imports nothing. Its files are then stored (each unpacked to a spool file of its own and
//! inserted as an upload is: one transaction, counted against the quota, a file the person
//! has already left as it is), then its notes read a second time, a note at a time, on a
//! blocking thread that hands each note to this request over a short queue — so memory
//! holds a few notes and a piece of a file, never the export.

use std::collections::HashSet;
use std::io::BufReader;
use std::path::Path;

use tokio::sync::watch;

use app::api::{
    FileInfo, ImportProblem, ImportProgress, ImportReport, NewNote, Note, quota_charge,
};

use super::export_reader::{self, cut};
use crate::error::ApiError;
use crate::files::sniff::declared_type;
use crate::files::spool::SpoolFile;
use crate::files::upload::spool_failure;
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

/// Notes read ahead of the one being imported.
const READ_AHEAD: usize = 8;
/// How much of a title a failure quotes.
const TITLE_QUOTED_CHARS: usize = 80;

/// Imports the oncenote export spooled at `path` into `scope`'s notes, telling `progress`
/// as it goes.
pub async fn import(
    state: &AppState,
    scope: &str,
    path: &Path,
    progress: &watch::Sender<ImportProgress>,
) -> Result<ImportReport, ApiError> {
    let zip = path.to_owned();
    let (count, declared) = tokio::task::spawn_blocking(move || {
        let count = export_reader::count_notes(spooled(&zip)?)?;
        let declared = export_reader::declared_files(spooled(&zip)?)?;
        Ok::<_, ApiError>((count, declared))
    })
    .await
    .map_err(|e| ApiError::Internal(e.into()))??;
    // Files declared past the room left are refused before each is unpacked and hashed;
    // `import_files` checks again with the sizes counted.
    fits_in_quota(state, scope, &declared).await?;
    let zip = path.to_owned();
    let max_file = state.config.file_max_bytes;
    let files = tokio::task::spawn_blocking(move || {
        export_reader::exported_files(spooled(&zip)?, max_file)
    })
    .await
    .map_err(|e| ApiError::Internal(e.into()))??;
    let (files_imported, files_there) = import_files(state, scope, path, files).await?;
    progress.send_modify(|p| p.files = files_imported + files_there);

    let zip = path.to_owned();
    let (notes, mut next) = tokio::sync::mpsc::channel::<Note>(READ_AHEAD);
    let reading = tokio::task::spawn_blocking(move || {
        export_reader::each_note(spooled(&zip)?, |note| {
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
        if progress.is_closed() {
            // Nobody waits for this import any more: the same file imported again goes on
            // where it stopped.
            return Err(ApiError::Internal(anyhow::anyhow!(
                "the import's request went away before its end"
            )));
        }
        index += 1;
        match import_one(state, scope, &note).await {
            Ok(true) => result.imported += 1,
            Ok(false) => result.already_there += 1,
            Err(error) => result.failed.push(failure(index, &note, &error)),
        }
        progress.send_modify(|p| p.notes = index);
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
    Ok(result)
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
    // What the inserts will charge: each file its size, at least 4 KiB.
    let charge = new
        .iter()
        .fold(0u64, |sum, f| sum.saturating_add(quota_charge(f.size)));
    if used.saturating_add(charge) > quota {
        return Err(ApiError::QuotaExceeded {
            size: charge,
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
    // An earlier import made it, and it was deleted for good since: not made again.
    if answer.stored.status == 410 {
        return Ok(false);
    }
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
