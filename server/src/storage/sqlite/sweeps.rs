//! The background sweeps on SQLite: the trash emptied; expired keys, tombstones,
//! sessions, sign-in limits and files no note refers to deleted.

use super::SqliteStore;
use super::note_writes::purge_note;
use crate::storage::StorageError;

/// Files a sweep deletes in one transaction (each takes its chunks with it: up to 25 MiB).
const FILE_SWEEP_BATCH: i64 = 50;

impl SqliteStore {
    pub async fn empty_trash_before(&self, cutoff: &str, now: &str) -> Result<u64, StorageError> {
        let mut emptied = 0;
        loop {
            // Small batches, so a write waiting behind this one waits briefly.
            let mut tx = self.writer.begin_with("BEGIN IMMEDIATE").await?;
            let expired: Vec<(String, String)> = sqlx::query_as(
                "SELECT scope, id FROM notes WHERE trashed_at IS NOT NULL AND trashed_at < ? LIMIT 200",
            )
            .bind(cutoff)
            .fetch_all(&mut *tx)
            .await?;
            for (scope, id) in &expired {
                purge_note(&mut tx, scope, id, None, None, now).await?;
            }
            tx.commit().await?;
            emptied += expired.len() as u64;
            if expired.len() < 200 {
                return Ok(emptied);
            }
        }
    }

    pub async fn sweep_expired(&self, now: &str) -> Result<u64, StorageError> {
        let result = sqlx::query("DELETE FROM idempotency_keys WHERE expires_at < ?")
            .bind(now)
            .execute(&self.writer)
            .await?;
        Ok(result.rows_affected())
    }

    pub async fn sweep_tombstones(&self, cutoff: &str) -> Result<u64, StorageError> {
        let mut deleted = 0;
        for table in ["purged_keys", "tombstones"] {
            deleted += sqlx::query(&format!("DELETE FROM {table} WHERE purged_at < ?"))
                .bind(cutoff)
                .execute(&self.writer)
                .await?
                .rows_affected();
        }
        Ok(deleted)
    }

    pub async fn sweep_files(&self, cutoff: &str) -> Result<u64, StorageError> {
        let mut swept = 0;
        loop {
            // A batch at a time (its chunks go with each file), so a write waits briefly.
            let mut tx = self.writer.begin_with("BEGIN IMMEDIATE").await?;
            let unused: Vec<(String, String, i64)> = sqlx::query_as(
                "SELECT scope, sha256, size FROM files f WHERE last_seen_at < ? AND NOT EXISTS \
                 (SELECT 1 FROM file_refs r WHERE r.scope = f.scope AND r.sha256 = f.sha256) \
                 LIMIT ?",
            )
            .bind(cutoff)
            .bind(FILE_SWEEP_BATCH)
            .fetch_all(&mut *tx)
            .await?;
            for (scope, sha256, size) in &unused {
                sqlx::query("DELETE FROM files WHERE scope = ? AND sha256 = ?")
                    .bind(scope)
                    .bind(sha256)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query("UPDATE file_usage SET used_bytes = used_bytes - ? WHERE scope = ?")
                    .bind(size)
                    .bind(scope)
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
            swept += unused.len() as u64;
            if (unused.len() as i64) < FILE_SWEEP_BATCH {
                return Ok(swept);
            }
        }
    }

    pub async fn sweep_sessions(&self, now: &str) -> Result<u64, StorageError> {
        Ok(sqlx::query("DELETE FROM sessions WHERE expires_at <= ?")
            .bind(now)
            .execute(&self.writer)
            .await?
            .rows_affected())
    }

    pub async fn sweep_limits(&self, now: &str, cutoff: &str) -> Result<u64, StorageError> {
        Ok(sqlx::query(
            "DELETE FROM sign_in_limits WHERE window_started_at < ?2 \
             AND (locked_until IS NULL OR locked_until <= ?1)",
        )
        .bind(now)
        .bind(cutoff)
        .execute(&self.writer)
        .await?
        .rows_affected())
    }
}
