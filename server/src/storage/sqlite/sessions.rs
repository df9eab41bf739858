//! Sessions on SQLite: made at sign-in, read and kept alive on each request, ended at
//! sign-out.

use super::SqliteStore;
use crate::records::{Credential, Viewer};
use crate::storage::StorageError;

impl SqliteStore {
    pub async fn create_session(
        &self,
        token_hash: &str,
        user_id: &str,
        now: &str,
        expires_at: &str,
    ) -> Result<(), StorageError> {
        sqlx::query(
            "INSERT INTO sessions (token_hash, user_id, created_at, last_seen_at, expires_at) \
             VALUES (?, ?, ?, ?, ?)",
        )
        .bind(token_hash)
        .bind(user_id)
        .bind(now)
        .bind(now)
        .bind(expires_at)
        .execute(&self.writer)
        .await?;
        Ok(())
    }

    /// The person a live session belongs to (an enabled user), and when it was last seen.
    pub async fn session_viewer(
        &self,
        token_hash: &str,
        now: &str,
    ) -> Result<Option<(Viewer, String)>, StorageError> {
        let row: Option<(String, String, bool, String)> = sqlx::query_as(
            "SELECT u.id, u.username, u.is_admin, s.last_seen_at FROM sessions s \
             JOIN users u ON u.id = s.user_id \
             WHERE s.token_hash = ? AND s.expires_at > ? AND u.disabled_at IS NULL",
        )
        .bind(token_hash)
        .bind(now)
        .fetch_optional(&self.reader)
        .await?;
        Ok(row.map(|(user_id, username, admin, last_seen)| {
            (
                Viewer {
                    user_id,
                    username,
                    admin,
                    via: Credential::Session(token_hash.to_owned()),
                },
                last_seen,
            )
        }))
    }

    /// Keeps a session alive: seen now, expiring later.
    pub async fn touch_session(
        &self,
        token_hash: &str,
        now: &str,
        expires_at: &str,
    ) -> Result<(), StorageError> {
        sqlx::query("UPDATE sessions SET last_seen_at = ?, expires_at = ? WHERE token_hash = ?")
            .bind(now)
            .bind(expires_at)
            .bind(token_hash)
            .execute(&self.writer)
            .await?;
        Ok(())
    }

    pub async fn delete_session(&self, token_hash: &str) -> Result<(), StorageError> {
        sqlx::query("DELETE FROM sessions WHERE token_hash = ?")
            .bind(token_hash)
            .execute(&self.writer)
            .await?;
        Ok(())
    }
}
