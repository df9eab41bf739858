//! Which notes refer to which files, on SQLite, kept by every write of a note inside its
//! transaction: a file a note refers to is never swept (`sweeps::sweep_files`), and one
//! no note refers to any more is swept once the grace period has passed.
//!
//! A note keeps its references over all its versions (history can bring an old one
//! back), so they are only dropped when the note is deleted for good. SQLite has one
//! writer at a time, so a sweep cannot run between a write's reference and its commit.

use app::api::Note;
use rusqlite::{Connection, params};

use crate::storage::StorageError;
use crate::storage::rows::files_of;
use crate::timestamp;

/// Records that `note` (as just written) refers to the files its text names, and marks
/// those already uploaded as seen now. A note may name a file not uploaded yet: its
/// reference waits for it (no foreign key), and keeps it once it arrives.
pub(super) fn refer_to_files(
    tx: &Connection,
    scope: &str,
    note: &Note,
) -> Result<(), StorageError> {
    let names = files_of(note);
    if names.is_empty() {
        return Ok(());
    }
    let names = serde_json::to_string(&names).map_err(anyhow::Error::from)?;
    // `WHERE true`: an upsert after a SELECT needs it to parse.
    tx.prepare_cached(
        "INSERT INTO file_refs (scope, sha256, note_id) \
         SELECT ?, value, ? FROM json_each(?) WHERE true ON CONFLICT DO NOTHING",
    )?
    .execute(params![scope, note.id, names])?;
    tx.prepare_cached(
        "UPDATE files SET last_seen_at = ? \
         WHERE scope = ? AND sha256 IN (SELECT value FROM json_each(?))",
    )?
    .execute(params![timestamp::format(timestamp::now()), scope, names])?;
    Ok(())
}

/// The files a note refers to, seen now; and its references dropped. `+scope`: the refs
/// are found by the note's index, not by walking every ref of the person (which the
/// planner chose with no statistics; in the write lock of every delete for good).
pub(super) const FILES_OF_NOTE_SEEN: &str = "UPDATE files SET last_seen_at = ? \
     WHERE scope = ? AND sha256 IN (SELECT sha256 FROM file_refs WHERE +scope = ? AND note_id = ?)";
pub(super) const REFS_OF_NOTE_DROPPED: &str =
    "DELETE FROM file_refs WHERE +scope = ? AND note_id = ?";

/// Drops the references of a note deleted for good; the files that lost one are seen
/// `at`, so each is kept for the grace period from now before it can be swept.
pub(super) fn forget_refs_of(
    tx: &Connection,
    scope: &str,
    note_id: &str,
    at: &str,
) -> Result<(), StorageError> {
    tx.prepare_cached(FILES_OF_NOTE_SEEN)?
        .execute(params![at, scope, scope, note_id])?;
    tx.prepare_cached(REFS_OF_NOTE_DROPPED)?
        .execute(params![scope, note_id])?;
    Ok(())
}
