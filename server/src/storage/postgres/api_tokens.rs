//! Personal access tokens on PostgreSQL: made, listed, revoked, and read on each request
//! that brings one.

use super::{PgStore, unstorable};
use crate::records::{Credential, Viewer};
use crate::storage::StorageError;
use crate::storage::store::api_tokens::{NewApiToken, TokenInfo, TokenMinted};

impl PgStore {
    /// Locks the person's row first (`FOR NO KEY UPDATE`: it does not stop their other
    /// writes, which only take a key-share lock on it), so creates at once — on any
    /// replica — count one after another and the cap holds, and a disable (which updates
    /// that row) lands before the session is checked or after the token is in, when it
    /// deletes it. A sign-out deleting the session meanwhile is seen by the check (read
    /// committed: each statement sees what committed before it) or, committing after the
    /// insert, leaves a token its person made while still signed in.
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
        let mut tx = self.pool.begin().await?;
        sqlx::query("SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE")
            .bind(user_id)
            .execute(&mut *tx)
            .await?;
        let standing: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM sessions s JOIN users u ON u.id = s.user_id \
             WHERE s.token_hash = $1 AND s.user_id = $2 AND s.expires_at > $3 \
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
        let held: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM api_tokens WHERE user_id = $1")
            .bind(user_id)
            .fetch_one(&mut *tx)
            .await?;
        if held >= cap {
            return Ok(TokenMinted::TooMany);
        }
        sqlx::query(
            "INSERT INTO api_tokens (id, user_id, name, digest, created_at, made_by) \
             VALUES ($1, $2, $3, $4, $5, $6)",
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
             WHERE user_id = $1 ORDER BY created_at DESC, id DESC",
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
        if unstorable(id) {
            return Ok(false);
        }
        let deleted = sqlx::query("DELETE FROM api_tokens WHERE id = $1 AND user_id = $2")
            .bind(id)
            .bind(user_id)
            .execute(&self.pool)
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
             WHERE t.digest = $1 AND u.disabled_at IS NULL",
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
            "UPDATE api_tokens SET last_used_at = $1 \
             WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $3)",
        )
        .bind(now)
        .bind(id)
        .bind(since)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
