//! The background sweeps on SQLite: the trash emptied; expired keys, tombstones,
//! sessions, sign-in limits and files no note refers to deleted.

use app::api::quota_charge;
use rusqlite::{Connection, params};

use super::SqliteStore;
use super::handle::lend;
use super::note_writes::purge_note;
use crate::storage::StorageError;

/// Notes of the trash deleted for good in one transaction (small batches, so a write
/// waiting behind one waits briefly).
const TRASH_SWEEP_BATCH: u64 = 200;

/// Deletes for good up to [`TRASH_SWEEP_BATCH`] notes moved to the trash before `cutoff`,
/// in one transaction; how many.
fn empty_some(connection: &Connection, cutoff: &str, now: &str) -> Result<u64, StorageError> {
    connection.execute_batch("BEGIN IMMEDIATE")?;
    let expired: Vec<(String, String)> = connection
        .prepare_cached(
            "SELECT scope, id FROM notes WHERE trashed_at IS NOT NULL AND trashed_at < ? LIMIT ?",
        )?
        .query_map(params![cutoff, TRASH_SWEEP_BATCH], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })?
        .collect::<Result<_, _>>()?;
    for (scope, id) in &expired {
        purge_note(connection, scope, id, None, None, now)?;
    }
    connection.execute_batch("COMMIT")?;
    Ok(expired.len() as u64)
}

/// Files a sweep deletes in one transaction (each takes its chunks with it: up to 25 MiB).
const FILE_SWEEP_BATCH: i64 = 50;

impl SqliteStore {
    pub async fn empty_trash_before(&self, cutoff: &str, now: &str) -> Result<u64, StorageError> {
        let (pool, runtime) = (self.writer.clone(), tokio::runtime::Handle::current());
        let (cutoff, now) = (cutoff.to_owned(), now.to_owned());
        // On the write pool's connection's handle, through rusqlite, as the writes of
        // notes run on the writer's (`purge_note`).
        tokio::task::spawn_blocking(move || {
            let mut emptied = 0;
            loop {
                let expired = lend(&runtime, &pool, |connection| {
                    let emptied = empty_some(connection, &cutoff, &now);
                    if emptied.is_err()
                        && !connection.is_autocommit()
                        && connection.execute_batch("ROLLBACK").is_err()
                    {
                        connection.discard();
                    }
                    emptied
                })??;
                emptied += expired;
                if expired < TRASH_SWEEP_BATCH {
                    return Ok(emptied);
                }
            }
        })
        .await
        .map_err(|panicked| {
            StorageError::Other(anyhow::anyhow!("the trash sweep panicked: {panicked}"))
        })?
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
                // What the insert charged, so the usage stays exact.
                let charge = quota_charge((*size).max(0) as u64) as i64;
                sqlx::query("UPDATE file_usage SET used_bytes = used_bytes - ? WHERE scope = ?")
                    .bind(charge)
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
