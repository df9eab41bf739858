//! Files on PostgreSQL: an upload stored in one transaction, its chunks read back from
//! the spool file inside it.
//!
//! Two uploads of the same new file at once (two tabs, a retry racing its first try, on
//! one replica or two): the second's insert of the row waits for the first's transaction;
//! when that commits, `ON CONFLICT DO NOTHING` inserts nothing and the second answers
//! `AlreadyThere` — never an error, and never counted twice, since the usage is touched
//! only by the upload whose row went in. The usage row is updated last, so parallel
//! uploads of different files by one person take turns only for their commits, and one
//! conditional `UPDATE` checks and counts the quota (READ COMMITTED re-reads the row a
//! waiting `UPDATE` finds changed, so two cannot both fit into the last room).

use std::path::Path;

use app::api::quota_charge;
use sqlx::{PgConnection, Postgres, Transaction};

use super::{PgStore, unstorable};
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

impl PgStore {
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
        // Its lock waits are bounded by `key_wait` (the write pool's `lock_timeout`).
        let mut tx = self.pool.begin().await?;
        let inserted = sqlx::query(
            "INSERT INTO files (scope, sha256, size, content_type, created_at, last_seen_at) \
             VALUES ($1, $2, $3, $4, $5, $5) ON CONFLICT DO NOTHING",
        )
        .bind(scope)
        .bind(sha256)
        .bind(size as i64)
        .bind(content_type)
        .bind(now)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if inserted == 0 {
            // The person has it: uploaded earlier, or by an upload that just finished.
            let row: Option<FileRow> = sqlx::query_as(&format!(
                "UPDATE files SET last_seen_at = $3 WHERE scope = $1 AND sha256 = $2 \
                 RETURNING {FILE_COLUMNS}"
            ))
            .bind(scope)
            .bind(sha256)
            .bind(now)
            .fetch_optional(&mut *tx)
            .await?;
            tx.commit().await?;
            // Swept between the two statements: as good as a conflict, run again.
            return row
                .map(|row| FileInsert::AlreadyThere(stored(row)))
                .ok_or(StorageError::Conflict);
        }
        let mut chunks = SpoolChunks::open(spool, size, sha256)
            .await
            .map_err(spool_error)?;
        let mut idx: i32 = 0;
        while let Some(chunk) = chunks.next().await.map_err(spool_error)? {
            sqlx::query(
                "INSERT INTO file_chunks (scope, sha256, idx, bytes) VALUES ($1, $2, $3, $4)",
            )
            .bind(scope)
            .bind(sha256)
            .bind(idx)
            .bind(chunk)
            .execute(&mut *tx)
            .await?;
            idx += 1;
        }
        if !count_usage(&mut tx, scope, quota_charge(size), quota).await? {
            let used = usage(&mut tx, scope).await?;
            tx.rollback().await?;
            return Ok(FileInsert::OverQuota { used, quota });
        }
        tx.commit().await?;
        Ok(FileInsert::Stored(StoredFile {
            sha256: sha256.to_owned(),
            size,
            content_type: content_type.to_owned(),
            created_at: now.to_owned(),
        }))
    }

    pub async fn touch_file(
        &self,
        scope: &str,
        sha256: &str,
        now: &str,
    ) -> Result<Option<StoredFile>, StorageError> {
        if unstorable(scope) || unstorable(sha256) {
            return Ok(None);
        }
        let row: Option<FileRow> = sqlx::query_as(&format!(
            "UPDATE files SET last_seen_at = $3 WHERE scope = $1 AND sha256 = $2 RETURNING {FILE_COLUMNS}"
        ))
        .bind(scope)
        .bind(sha256)
        .bind(now)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(stored))
    }

    pub async fn file(
        &self,
        scope: &str,
        sha256: &str,
    ) -> Result<Option<StoredFile>, StorageError> {
        if unstorable(scope) || unstorable(sha256) {
            return Ok(None);
        }
        let row: Option<FileRow> = sqlx::query_as(&format!(
            "SELECT {FILE_COLUMNS} FROM files WHERE scope = $1 AND sha256 = $2"
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
        if unstorable(scope) || unstorable(sha256) {
            return Ok(Vec::new());
        }
        Ok(sqlx::query_scalar(
            "SELECT bytes FROM file_chunks WHERE scope = $1 AND sha256 = $2 \
             AND idx BETWEEN $3 AND $4 ORDER BY idx",
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
            sqlx::query_scalar("SELECT used_bytes FROM file_usage WHERE scope = $1")
                .bind(scope)
                .fetch_optional(&self.reader)
                .await?;
        Ok(used.unwrap_or(0).max(0) as u64)
    }

    pub async fn files_of(&self, scope: &str) -> Result<(Vec<StoredFile>, u64), StorageError> {
        // One snapshot, so the list and the usage agree.
        let mut tx = self.reader.begin().await?;
        sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            .execute(&mut *tx)
            .await?;
        let rows: Vec<FileRow> = sqlx::query_as(&format!(
            "SELECT {FILE_COLUMNS} FROM files WHERE scope = $1 ORDER BY created_at DESC, sha256"
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
        if unstorable(scope) {
            return Ok(FilePage::of(Vec::new(), limit, 0, 0));
        }
        // One more than asked tells whether another page exists.
        let fetch = i64::from(limit) + 1;
        // One snapshot, so the page, the usage and the count agree.
        let mut tx = self.reader.begin().await?;
        sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            .execute(&mut *tx)
            .await?;
        // $1 scope, $2 limit, $3–$4 the cursor (both NULL on the first page).
        let after_cursor = if after.is_some() {
            "AND (created_at, sha256) < ($3, $4)"
        } else {
            "AND ($3::text IS NULL AND $4::text IS NULL)"
        };
        let rows: Vec<FileRow> = sqlx::query_as(&format!(
            "SELECT {FILE_COLUMNS} FROM files WHERE scope = $1 {after_cursor} \
             ORDER BY created_at DESC, sha256 DESC LIMIT $2"
        ))
        .bind(scope)
        .bind(fetch)
        .bind(after.map(|c| c.at.as_str()))
        .bind(after.map(|c| c.sha256.as_str()))
        .fetch_all(&mut *tx)
        .await?;
        let used = usage(&mut tx, scope).await?;
        let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM files WHERE scope = $1")
            .bind(scope)
            .fetch_one(&mut *tx)
            .await?;
        tx.commit().await?;
        let files = rows.into_iter().map(stored).collect();
        Ok(FilePage::of(files, limit, used, count.max(0) as u64))
    }
}

/// Adds `charge` (a file's [`quota_charge`]) to the person's usage if it stays within
/// `quota`; false (nothing changed) if it would not.
async fn count_usage(
    tx: &mut Transaction<'static, Postgres>,
    scope: &str,
    charge: u64,
    quota: u64,
) -> Result<bool, StorageError> {
    sqlx::query("INSERT INTO file_usage (scope, used_bytes) VALUES ($1, 0) ON CONFLICT DO NOTHING")
        .bind(scope)
        .execute(&mut **tx)
        .await?;
    let counted: Option<i64> = sqlx::query_scalar(
        "UPDATE file_usage SET used_bytes = used_bytes + $2 \
         WHERE scope = $1 AND used_bytes + $2 <= $3 RETURNING used_bytes",
    )
    .bind(scope)
    .bind(charge as i64)
    .bind(quota.min(i64::MAX as u64) as i64)
    .fetch_optional(&mut **tx)
    .await?;
    Ok(counted.is_some())
}

/// What the person's files cost of the quota.
async fn usage(tx: &mut PgConnection, scope: &str) -> Result<u64, StorageError> {
    let used: Option<i64> =
        sqlx::query_scalar("SELECT used_bytes FROM file_usage WHERE scope = $1")
            .bind(scope)
            .fetch_optional(&mut *tx)
            .await?;
    Ok(used.unwrap_or(0).max(0) as u64)
}
