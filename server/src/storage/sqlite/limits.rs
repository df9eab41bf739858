//! The sign-in limits on SQLite: attempts counted in buckets, locks and refunds.

use super::SqliteStore;
use crate::storage::StorageError;

impl SqliteStore {
    /// Counts an attempt in a limit's bucket in one statement (see `Store::take_attempt`):
    /// parallel attempts each see their own count, so no more than the limit pass.
    pub async fn take_attempt(
        &self,
        bucket: &str,
        now: &str,
        cutoff: &str,
    ) -> Result<(i64, Option<String>), StorageError> {
        Ok(sqlx::query_as(
            "INSERT INTO sign_in_limits (bucket, failures, window_started_at) VALUES (?1, 1, ?2) \
             ON CONFLICT (bucket) DO UPDATE SET \
             failures = CASE WHEN locked_until > ?2 THEN failures \
                             WHEN window_started_at < ?3 OR locked_until IS NOT NULL THEN 1 \
                             ELSE failures + 1 END, \
             window_started_at = CASE WHEN locked_until > ?2 THEN window_started_at \
                             WHEN window_started_at < ?3 OR locked_until IS NOT NULL THEN ?2 \
                             ELSE window_started_at END, \
             locked_until = CASE WHEN locked_until > ?2 THEN locked_until \
                             ELSE NULL END \
             RETURNING failures, locked_until",
        )
        .bind(bucket)
        .bind(now)
        .bind(cutoff)
        .fetch_one(&self.writer)
        .await?)
    }

    pub async fn lock_bucket(&self, bucket: &str, until: &str) -> Result<(), StorageError> {
        sqlx::query("UPDATE sign_in_limits SET locked_until = ?1 WHERE bucket = ?2")
            .bind(until)
            .bind(bucket)
            .execute(&self.writer)
            .await?;
        Ok(())
    }

    pub async fn refund_attempt(&self, bucket: &str) -> Result<(), StorageError> {
        sqlx::query(
            "UPDATE sign_in_limits SET failures = failures - 1 WHERE bucket = ?1 AND failures > 0",
        )
        .bind(bucket)
        .execute(&self.writer)
        .await?;
        Ok(())
    }

    pub async fn reset_attempts(&self, bucket: &str, now: &str) -> Result<(), StorageError> {
        sqlx::query(
            "UPDATE sign_in_limits SET failures = 0 \
             WHERE bucket = ?1 AND (locked_until IS NULL OR locked_until <= ?2)",
        )
        .bind(bucket)
        .bind(now)
        .execute(&self.writer)
        .await?;
        Ok(())
    }
}
