//! The background sweeps on PostgreSQL, in small batches that skip locked rows: the trash
//! emptied; expired keys, tombstones, sessions, sign-in limits and files no note refers
//! to deleted.

use app::api::{ChangeKind, FILE_MIN_CHARGE_BYTES};
use sqlx::postgres::PgPool;

use super::PgStore;
use super::changes::{PendingChange, record_changes};
use super::note_writes::purge_note;
use crate::storage::StorageError;

/// Rows a sweep takes in one transaction.
pub(super) const SWEEP_BATCH: i64 = 500;
/// Files a sweep deletes in one transaction (each takes its chunks with it: up to 25 MiB).
const FILE_SWEEP_BATCH: i64 = 50;

impl PgStore {
    pub async fn empty_trash_before(&self, cutoff: &str, now: &str) -> Result<u64, StorageError> {
        let mut emptied = 0;
        loop {
            let mut tx = self.pool.begin().await?;
            let expired: Vec<(String, String)> = sqlx::query_as(
                "SELECT scope, id FROM notes WHERE trashed_at IS NOT NULL AND trashed_at < $1 \
                 ORDER BY trashed_at LIMIT $2 FOR UPDATE SKIP LOCKED",
            )
            .bind(cutoff)
            .bind(SWEEP_BATCH)
            .fetch_all(&mut *tx)
            .await?;
            let mut changes = Vec::with_capacity(expired.len());
            for (scope, id) in &expired {
                purge_note(&mut tx, scope, id, None, None, now).await?;
                changes.push(PendingChange::new(scope, id, ChangeKind::Purge, now));
            }
            record_changes(&mut tx, &changes).await?;
            tx.commit().await?;
            emptied += expired.len() as u64;
            if (expired.len() as i64) < SWEEP_BATCH {
                return Ok(emptied);
            }
        }
    }

    pub async fn sweep_expired(&self, now: &str) -> Result<u64, StorageError> {
        sweep(
            &self.pool,
            "DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys \
             WHERE expires_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)",
            now,
        )
        .await
    }

    pub async fn sweep_tombstones(&self, cutoff: &str) -> Result<u64, StorageError> {
        let mut deleted = 0;
        for table in ["purged_keys", "tombstones"] {
            deleted += sweep(
                &self.pool,
                &format!(
                    "DELETE FROM {table} WHERE ctid IN (SELECT ctid FROM {table} \
                     WHERE purged_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)"
                ),
                cutoff,
            )
            .await?;
        }
        Ok(deleted)
    }

    /// A file is deleted only if, once this sweep holds its row, it was still last seen
    /// before `cutoff`: a write that refers to it marks it seen in the write's own
    /// transaction (`file_refs::refer_to_files`), so a file a write is about to refer to
    /// is skipped while the write holds it, and kept after it commits.
    pub async fn sweep_files(&self, cutoff: &str) -> Result<u64, StorageError> {
        let mut swept = 0;
        loop {
            let batch: i64 = sqlx::query_scalar(
                "WITH gone AS ( \
                   DELETE FROM files WHERE (scope, sha256) IN ( \
                     SELECT scope, sha256 FROM files f WHERE last_seen_at < $1 AND NOT EXISTS \
                       (SELECT 1 FROM file_refs r WHERE r.scope = f.scope AND r.sha256 = f.sha256) \
                     ORDER BY last_seen_at LIMIT $2 FOR UPDATE SKIP LOCKED) \
                   AND last_seen_at < $1 \
                   RETURNING scope, size), \
                 used AS ( \
                   UPDATE file_usage u SET used_bytes = u.used_bytes - g.charge \
                   FROM (SELECT scope, SUM(GREATEST(size, $3))::bigint AS charge \
                         FROM gone GROUP BY scope) g \
                   WHERE u.scope = g.scope) \
                 SELECT COUNT(*) FROM gone",
            )
            .bind(cutoff)
            .bind(FILE_SWEEP_BATCH)
            // What the inserts charged (`app::api::quota_charge`), so the usage stays exact.
            .bind(FILE_MIN_CHARGE_BYTES as i64)
            .fetch_one(&self.pool)
            .await?;
            swept += batch as u64;
            if batch < FILE_SWEEP_BATCH {
                return Ok(swept);
            }
        }
    }

    pub async fn sweep_sessions(&self, now: &str) -> Result<u64, StorageError> {
        sweep(
            &self.pool,
            "DELETE FROM sessions WHERE ctid IN (SELECT ctid FROM sessions \
             WHERE expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED)",
            now,
        )
        .await
    }

    pub async fn sweep_limits(&self, now: &str, cutoff: &str) -> Result<u64, StorageError> {
        Ok(sqlx::query(
            "DELETE FROM sign_in_limits WHERE window_started_at < $2 \
             AND (locked_until IS NULL OR locked_until <= $1)",
        )
        .bind(now)
        .bind(cutoff)
        .execute(&self.pool)
        .await?
        .rows_affected())
    }
}

/// Deletes rows a `DELETE … WHERE ctid IN (… LIMIT $2 FOR UPDATE SKIP LOCKED)` picks,
/// batch after batch, until a batch comes back short.
async fn sweep(pool: &PgPool, statement: &str, now: &str) -> Result<u64, StorageError> {
    let mut deleted = 0;
    loop {
        let batch = sqlx::query(statement)
            .bind(now)
            .bind(SWEEP_BATCH)
            .execute(pool)
            .await?
            .rows_affected();
        deleted += batch;
        if (batch as i64) < SWEEP_BATCH {
            return Ok(deleted);
        }
    }
}
