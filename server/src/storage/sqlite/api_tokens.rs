//! Personal access tokens on SQLite: made, listed, revoked, and read on each request that
//! brings one.

use super::SqliteStore;
use crate::records::{Credential, Viewer};
use crate::storage::StorageError;
use crate::storage::store::api_tokens::{NewApiToken, TokenInfo, TokenMinted};

impl SqliteStore {
    /// Checks the session, counts and inserts in one `BEGIN IMMEDIATE` transaction: it
    /// holds the write lock from its first statement, so no other create counts, and no
    /// sign-out or disable lands, in between.
    pub async fn create_api_token(
        &self,
        token: NewApiToken<'_>,
        cap: i64,
    ) -> Result<TokenMinted, StorageError> {
        let NewApiToken {
            id,
            user_id,
            session,
            name,
            digest,
            created_at: now,
        } = token;
        let mut tx = self.writer.begin_with("BEGIN IMMEDIATE").await?;
        let standing: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM sessions s JOIN users u ON u.id = s.user_id \
             WHERE s.token_hash = ? AND s.user_id = ? AND s.expires_at > ? \
             AND u.disabled_at IS NULL",
        )
        .bind(session)
        .bind(user_id)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        if standing == 0 {
            return Ok(TokenMinted::SessionEnded);
        }
        let held: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM api_tokens WHERE user_id = ?")
            .bind(user_id)
            .fetch_one(&mut *tx)
            .await?;
        if held >= cap {
            return Ok(TokenMinted::TooMany);
        }
        sqlx::query(
            "INSERT INTO api_tokens (id, user_id, name, digest, created_at, made_by) \
             VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(id)
        .bind(user_id)
        .bind(name)
        .bind(digest)
        .bind(now)
        .bind(session)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(TokenMinted::Made)
    }

    pub async fn list_api_tokens(&self, user_id: &str) -> Result<Vec<TokenInfo>, StorageError> {
        let rows: Vec<(String, String, String, Option<String>)> = sqlx::query_as(
            "SELECT id, name, created_at, last_used_at FROM api_tokens \
             WHERE user_id = ? ORDER BY created_at DESC, id DESC",
        )
        .bind(user_id)
        .fetch_all(&self.reader)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(id, name, created_at, last_used_at)| TokenInfo {
                id,
                name,
                created_at,
                last_used_at,
            })
            .collect())
    }

    pub async fn delete_api_token(&self, user_id: &str, id: &str) -> Result<bool, StorageError> {
        let deleted = sqlx::query("DELETE FROM api_tokens WHERE id = ? AND user_id = ?")
            .bind(id)
            .bind(user_id)
            .execute(&self.writer)
            .await?
            .rows_affected();
        Ok(deleted == 1)
    }

    pub async fn token_viewer(
        &self,
        digest: &str,
    ) -> Result<Option<(Viewer, Option<String>)>, StorageError> {
        let row: Option<(String, String, String, bool, Option<String>)> = sqlx::query_as(
            "SELECT t.id, u.id, u.username, u.is_admin, t.last_used_at FROM api_tokens t \
             JOIN users u ON u.id = t.user_id \
             WHERE t.digest = ? AND u.disabled_at IS NULL",
        )
        .bind(digest)
        .fetch_optional(&self.reader)
        .await?;
        Ok(row.map(|(id, user_id, username, admin, last_used)| {
            (
                Viewer {
                    user_id,
                    username,
                    admin,
                    via: Credential::Token {
                        id,
                        digest: digest.to_owned(),
                    },
                },
                last_used,
            )
        }))
    }

    pub async fn touch_api_token(
        &self,
        id: &str,
        now: &str,
        since: &str,
    ) -> Result<(), StorageError> {
        sqlx::query(
            "UPDATE api_tokens SET last_used_at = ? \
             WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)",
        )
        .bind(now)
        .bind(id)
        .bind(since)
        .execute(&self.writer)
        .await?;
        Ok(())
    }
}
