//! Which notes refer to which files, on PostgreSQL, kept by every write of a note inside
//! its transaction: a file a note refers to is never swept (`sweeps::sweep_files`), and
//! one no note refers to any more is swept once the grace period has passed.
//!
//! A note keeps its references over all its versions (history can bring an old one
//! back), so they are only dropped when the note is deleted for good.
//!
//! *A sweep racing a write*: the write marks every file it refers to as seen now, which
//! locks the file's row until the write commits. The sweep deletes only rows it locked
//! itself (`SKIP LOCKED`) whose `last_seen_at` is still older than the grace once locked
//! — PostgreSQL checks a locked row's newest version again — so a file a write is about
//! to refer to is either kept, or was swept before the write touched it.

use app::api::Note;
use sqlx::{Postgres, Transaction};

use crate::storage::StorageError;
use crate::storage::rows::files_of;
use crate::timestamp;

/// Records that `note` (as just written) refers to the files its text names, and marks
/// those already uploaded as seen now. A note may name a file not uploaded yet: its
/// reference waits for it (no foreign key), and keeps it once it arrives.
pub(super) async fn refer_to_files(
    tx: &mut Transaction<'static, Postgres>,
    scope: &str,
    note: &Note,
) -> Result<(), StorageError> {
    let mut names = files_of(note);
    if names.is_empty() {
        return Ok(());
    }
    // In one order, so two writes naming the same files lock their rows in turn.
    names.sort();
    sqlx::query(
        "INSERT INTO file_refs (scope, sha256, note_id) \
         SELECT $1, sha256, $2 FROM UNNEST($3::text[]) AS sha256 ON CONFLICT DO NOTHING",
    )
    .bind(scope)
    .bind(&note.id)
    .bind(&names)
    .execute(&mut **tx)
    .await?;
    sqlx::query(
        "UPDATE files SET last_seen_at = $1 WHERE (scope, sha256) IN \
         (SELECT scope, sha256 FROM files WHERE scope = $2 AND sha256 = ANY($3) \
          ORDER BY sha256 FOR UPDATE)",
    )
    .bind(timestamp::format(timestamp::now()))
    .bind(scope)
    .bind(&names)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Drops the references of a note deleted for good; the files that lost one are seen
/// `at`, so each is kept for the grace period from now before it can be swept.
pub(super) async fn forget_refs_of(
    tx: &mut Transaction<'static, Postgres>,
    scope: &str,
    note_id: &str,
    at: &str,
) -> Result<(), StorageError> {
    sqlx::query(
        "WITH lost AS (DELETE FROM file_refs WHERE scope = $1 AND note_id = $2 RETURNING sha256) \
         UPDATE files SET last_seen_at = $3 WHERE (scope, sha256) IN \
         (SELECT scope, sha256 FROM files WHERE scope = $1 AND sha256 IN (SELECT sha256 FROM lost) \
          ORDER BY sha256 FOR UPDATE)",
    )
    .bind(scope)
    .bind(note_id)
    .bind(at)
    .execute(&mut **tx)
    .await?;
    Ok(())
}
