//! Files on SQLite: an upload stored in one `BEGIN IMMEDIATE` transaction on the write
//! connection, its chunks read back from the spool file inside it.
//!
//! Not a job of the group-commit writer: a file is one large write of its own (up to a
//! hundred chunk rows), which shares nothing with the notes' small writes, and its outcome
//! (stored, already there, over quota) is not a note write's answer. It takes the write
//! pool's one connection like the sweeps do — the process's turn to write, which the
//! group-commit writer takes for each batch too — so it never runs beside another write;
//! a write that waits longer than `key_wait` for it is 503 `database-busy`.

use std::path::Path;

use app::api::quota_charge;
use sqlx::{Connection, SqliteConnection};

use super::SqliteStore;
use crate::records::file_cursor::FileCursor;
use crate::storage::StorageError;
use crate::storage::files::{FileInsert, FilePage, SpoolChunks, StoredFile, spool_error};

/// `files` columns read into [`StoredFile`].
const FILE_COLUMNS: &str = "sha256, size, content_type, created_at";

type FileRow = (String, i64, String, String);

fn stored((sha256, size, content_type, created_at): FileRow) -> StoredFile {
    StoredFile {
        sha256,
        size: size.max(0) as u64,
        content_type,
        created_at,
    }
}

impl SqliteStore {
    #[allow(clippy::too_many_arguments)]
    pub async fn insert_file(
        &self,
        scope: &str,
        sha256: &str,
        size: u64,
        content_type: &str,
        spool: &Path,
        quota: u64,
        now: &str,
    ) -> Result<FileInsert, StorageError> {
        let mut connection = self.writer.acquire().await?;
        let mut tx = connection.begin_with("BEGIN IMMEDIATE").await?;
        let outcome = write_file(
            &mut tx,
            scope,
            sha256,
            size,
            content_type,
            spool,
            quota,
            now,
        )
        .await;
        match outcome {
            Ok(FileInsert::OverQuota { used, quota }) => {
                tx.rollback().await?;
                Ok(FileInsert::OverQuota { used, quota })
            }
            Ok(done) => {
                if let Err(error) = tx.commit().await {
                    connection.close_on_drop();
                    return Err(error.into());
                }
                Ok(done)
            }
            Err(error) => {
                // A full disk (SQLITE_FULL) rolls the transaction back by itself, and the
                // rollback then fails: the connection's state is unknown, so it is closed
                // and never used again (as the writer does).
                if tx.rollback().await.is_err() {
                    connection.close_on_drop();
                }
                Err(error)
            }
        }
    }

    pub async fn touch_file(
        &self,
        scope: &str,
        sha256: &str,
        now: &str,
    ) -> Result<Option<StoredFile>, StorageError> {
        let row: Option<FileRow> = sqlx::query_as(&format!(
            "UPDATE files SET last_seen_at = ? WHERE scope = ? AND sha256 = ? RETURNING {FILE_COLUMNS}"
        ))
        .bind(now)
        .bind(scope)
        .bind(sha256)
        .fetch_optional(&self.writer)
        .await?;
        Ok(row.map(stored))
    }

    pub async fn file(
        &self,
        scope: &str,
        sha256: &str,
    ) -> Result<Option<StoredFile>, StorageError> {
        let row: Option<FileRow> = sqlx::query_as(&format!(
            "SELECT {FILE_COLUMNS} FROM files WHERE scope = ? AND sha256 = ?"
        ))
        .bind(scope)
        .bind(sha256)
        .fetch_optional(&self.reader)
        .await?;
        Ok(row.map(stored))
    }

    pub async fn file_chunks(
        &self,
        scope: &str,
        sha256: &str,
        first: u32,
        last: u32,
    ) -> Result<Vec<Vec<u8>>, StorageError> {
        Ok(sqlx::query_scalar(
            "SELECT bytes FROM file_chunks WHERE scope = ? AND sha256 = ? AND idx BETWEEN ? AND ? \
             ORDER BY idx",
        )
        .bind(scope)
        .bind(sha256)
        .bind(i64::from(first))
        .bind(i64::from(last))
        .fetch_all(&self.reader)
        .await?)
    }

    pub async fn used_bytes(&self, scope: &str) -> Result<u64, StorageError> {
        let used: Option<i64> =
            sqlx::query_scalar("SELECT used_bytes FROM file_usage WHERE scope = ?")
                .bind(scope)
                .fetch_optional(&self.reader)
                .await?;
        Ok(used.unwrap_or(0).max(0) as u64)
    }

    pub async fn files_of(&self, scope: &str) -> Result<(Vec<StoredFile>, u64), StorageError> {
        // One read transaction, so the list and the usage agree.
        let mut tx = self.reader.begin().await?;
        let rows: Vec<FileRow> = sqlx::query_as(&format!(
            "SELECT {FILE_COLUMNS} FROM files WHERE scope = ? ORDER BY created_at DESC, sha256"
        ))
        .bind(scope)
        .fetch_all(&mut *tx)
        .await?;
        let used = usage(&mut tx, scope).await?;
        tx.commit().await?;
        Ok((rows.into_iter().map(stored).collect(), used))
    }

    pub async fn file_page(
        &self,
        scope: &str,
        limit: u32,
        after: Option<&FileCursor>,
    ) -> Result<FilePage, StorageError> {
        // One more than asked tells whether another page exists.
        let fetch = i64::from(limit) + 1;
        // One read transaction, so the page, the usage and the count agree.
        let mut tx = self.reader.begin().await?;
        let rows: Vec<FileRow> = match after {
            None => {
                sqlx::query_as(&format!(
                    "SELECT {FILE_COLUMNS} FROM files WHERE scope = ? \
                     ORDER BY created_at DESC, sha256 DESC LIMIT ?"
                ))
                .bind(scope)
                .bind(fetch)
                .fetch_all(&mut *tx)
                .await?
            }
            Some(after) => {
                sqlx::query_as(&format!(
                    "SELECT {FILE_COLUMNS} FROM files WHERE scope = ? \
                     AND (created_at, sha256) < (?, ?) \
                     ORDER BY created_at DESC, sha256 DESC LIMIT ?"
                ))
                .bind(scope)
                .bind(&after.at)
                .bind(&after.sha256)
                .bind(fetch)
                .fetch_all(&mut *tx)
                .await?
            }
        };
        let used = usage(&mut tx, scope).await?;
        let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM files WHERE scope = ?")
            .bind(scope)
            .fetch_one(&mut *tx)
            .await?;
        tx.commit().await?;
        let files = rows.into_iter().map(stored).collect();
        Ok(FilePage::of(files, limit, used, count.max(0) as u64))
    }
}

/// The insert's statements, inside its transaction: `OverQuota` leaves what it did for
/// the caller to roll back.
#[allow(clippy::too_many_arguments)]
async fn write_file(
    tx: &mut SqliteConnection,
    scope: &str,
    sha256: &str,
    size: u64,
    content_type: &str,
    spool: &Path,
    quota: u64,
    now: &str,
) -> Result<FileInsert, StorageError> {
    // Under the write lock nothing else inserts between this read and the insert.
    let existing: Option<FileRow> = sqlx::query_as(&format!(
        "UPDATE files SET last_seen_at = ? WHERE scope = ? AND sha256 = ? \
         RETURNING {FILE_COLUMNS}"
    ))
    .bind(now)
    .bind(scope)
    .bind(sha256)
    .fetch_optional(&mut *tx)
    .await?;
    if let Some(row) = existing {
        return Ok(FileInsert::AlreadyThere(stored(row)));
    }
    if !count_usage(tx, scope, quota_charge(size), quota).await? {
        let used = usage(tx, scope).await?;
        return Ok(FileInsert::OverQuota { used, quota });
    }
    sqlx::query(
        "INSERT INTO files (scope, sha256, size, content_type, created_at, last_seen_at) \
         VALUES (?, ?, ?, ?, ?, ?)",
    )
    .bind(scope)
    .bind(sha256)
    .bind(size as i64)
    .bind(content_type)
    .bind(now)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    let mut chunks = SpoolChunks::open(spool, size, sha256)
        .await
        .map_err(spool_error)?;
    let mut idx: i64 = 0;
    while let Some(chunk) = chunks.next().await.map_err(spool_error)? {
        sqlx::query("INSERT INTO file_chunks (scope, sha256, idx, bytes) VALUES (?, ?, ?, ?)")
            .bind(scope)
            .bind(sha256)
            .bind(idx)
            .bind(chunk)
            .execute(&mut *tx)
            .await?;
        idx += 1;
    }
    Ok(FileInsert::Stored(StoredFile {
        sha256: sha256.to_owned(),
        size,
        content_type: content_type.to_owned(),
        created_at: now.to_owned(),
    }))
}

/// Adds `charge` (a file's [`quota_charge`]) to the person's usage if it stays within
/// `quota`; false (nothing changed) if it would not.
async fn count_usage(
    tx: &mut SqliteConnection,
    scope: &str,
    charge: u64,
    quota: u64,
) -> Result<bool, StorageError> {
    sqlx::query("INSERT INTO file_usage (scope, used_bytes) VALUES (?, 0) ON CONFLICT DO NOTHING")
        .bind(scope)
        .execute(&mut *tx)
        .await?;
    let counted: Option<i64> = sqlx::query_scalar(
        "UPDATE file_usage SET used_bytes = used_bytes + ? \
         WHERE scope = ? AND used_bytes + ? <= ? RETURNING used_bytes",
    )
    .bind(charge as i64)
    .bind(scope)
    .bind(charge as i64)
    .bind(quota.min(i64::MAX as u64) as i64)
    .fetch_optional(&mut *tx)
    .await?;
    Ok(counted.is_some())
}

/// What the person's files cost of the quota.
async fn usage(tx: &mut SqliteConnection, scope: &str) -> Result<u64, StorageError> {
    let used: Option<i64> = sqlx::query_scalar("SELECT used_bytes FROM file_usage WHERE scope = ?")
        .bind(scope)
        .fetch_optional(&mut *tx)
        .await?;
    Ok(used.unwrap_or(0).max(0) as u64)
}
