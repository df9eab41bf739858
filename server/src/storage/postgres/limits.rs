//! The sign-in limits on PostgreSQL: attempts counted in buckets (one upsert per
//! attempt, so replicas counting at once never lose one), locks and refunds.

use super::PgStore;
use crate::storage::StorageError;

impl PgStore {
    /// Counts an attempt in a limit's bucket in one statement (see `Store::take_attempt`):
    /// parallel attempts each see their own count, so no more than the limit pass.
    pub async fn take_attempt(
        &self,
        bucket: &str,
        now: &str,
        cutoff: &str,
    ) -> Result<(i64, Option<String>), StorageError> {
        Ok(sqlx::query_as(
            "INSERT INTO sign_in_limits (bucket, failures, window_started_at) VALUES ($1, 1, $2) \
             ON CONFLICT (bucket) DO UPDATE SET \
             failures = CASE WHEN sign_in_limits.locked_until > $2 THEN sign_in_limits.failures \
                             WHEN sign_in_limits.window_started_at < $3 OR sign_in_limits.locked_until IS NOT NULL THEN 1 \
                             ELSE sign_in_limits.failures + 1 END, \
             window_started_at = CASE WHEN sign_in_limits.locked_until > $2 THEN sign_in_limits.window_started_at \
                             WHEN sign_in_limits.window_started_at < $3 OR sign_in_limits.locked_until IS NOT NULL THEN $2 \
                             ELSE sign_in_limits.window_started_at END, \
             locked_until = CASE WHEN sign_in_limits.locked_until > $2 THEN sign_in_limits.locked_until \
                             ELSE NULL END \
             RETURNING failures, locked_until",
        )
        .bind(bucket)
        .bind(now)
        .bind(cutoff)
        .fetch_one(&self.pool)
        .await?)
    }

    pub async fn lock_bucket(&self, bucket: &str, until: &str) -> Result<(), StorageError> {
        sqlx::query("UPDATE sign_in_limits SET locked_until = $1 WHERE bucket = $2")
            .bind(until)
            .bind(bucket)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    pub async fn refund_attempt(&self, bucket: &str) -> Result<(), StorageError> {
        sqlx::query(
            "UPDATE sign_in_limits SET failures = failures - 1 WHERE bucket = $1 AND failures > 0",
        )
        .bind(bucket)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn reset_attempts(&self, bucket: &str, now: &str) -> Result<(), StorageError> {
        sqlx::query(
            "UPDATE sign_in_limits SET failures = 0 \
             WHERE bucket = $1 AND (locked_until IS NULL OR locked_until <= $2)",
        )
        .bind(bucket)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
