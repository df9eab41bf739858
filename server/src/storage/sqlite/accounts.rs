//! The SQL of accounts on SQLite: users, the first-admin row, setup links and
//! invitations.

use sqlx::Row;

use super::SqliteStore;
use crate::records::SHARED_SCOPE;
use crate::records::{NewUser, User};
use crate::storage::StorageError;
use crate::storage::rows::SCOPED_TABLES;
use crate::storage::rows::UserRow;

/// A unique-constraint failure on the usernames: the name is taken.
fn taken(error: sqlx::Error) -> StorageError {
    match &error {
        sqlx::Error::Database(db) if db.message().contains("users.username") => {
            StorageError::UsernameTaken
        }
        _ => error.into(),
    }
}

async fn insert_user<'e>(
    executor: impl sqlx::SqliteExecutor<'e>,
    user: &NewUser,
) -> Result<(), StorageError> {
    sqlx::query(
        "INSERT INTO users (id, username, password_hash, is_admin, created_at, password_changed_at) \
         VALUES (?, ?, ?, ?, ?, ?)",
    )
    .bind(&user.id)
    .bind(&user.username)
    .bind(&user.password_hash)
    .bind(user.admin)
    .bind(&user.created_at)
    .bind(&user.created_at)
    .execute(executor)
    .await
    .map_err(taken)?;
    Ok(())
}

impl SqliteStore {
    pub async fn user_count(&self) -> Result<i64, StorageError> {
        Ok(sqlx::query_scalar("SELECT COUNT(*) FROM users")
            .fetch_one(&self.reader)
            .await?)
    }

    pub async fn setup_done(&self) -> Result<bool, StorageError> {
        let done: Option<i64> = sqlx::query_scalar("SELECT 1 FROM setup WHERE id = 1")
            .fetch_optional(&self.reader)
            .await?;
        Ok(done.is_some())
    }

    /// Makes `user` the first admin, if no one is yet: the user, the setup row and the
    /// notes from before accounts move to them, in one transaction. False if another
    /// setup won.
    pub async fn create_first_admin(&self, user: &NewUser) -> Result<bool, StorageError> {
        let mut tx = self.writer.begin_with("BEGIN IMMEDIATE").await?;
        let done: Option<i64> = sqlx::query_scalar("SELECT 1 FROM setup WHERE id = 1")
            .fetch_optional(&mut *tx)
            .await?;
        if done.is_some() {
            return Ok(false);
        }
        insert_user(&mut *tx, user).await?;
        sqlx::query("INSERT INTO setup (id, admin_id, done_at) VALUES (1, ?, ?)")
            .bind(&user.id)
            .bind(&user.created_at)
            .execute(&mut *tx)
            .await?;
        for table in SCOPED_TABLES {
            sqlx::query(&format!("UPDATE {table} SET scope = ? WHERE scope = ?"))
                .bind(&user.id)
                .bind(SHARED_SCOPE)
                .execute(&mut *tx)
                .await?;
        }
        sqlx::query("DELETE FROM setup_tokens")
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Keeps a new setup link's token; the links printed at earlier starts stop working.
    pub async fn add_setup_token(&self, token_hash: &str, now: &str) -> Result<(), StorageError> {
        let mut tx = self.writer.begin_with("BEGIN IMMEDIATE").await?;
        sqlx::query("DELETE FROM setup_tokens")
            .execute(&mut *tx)
            .await?;
        sqlx::query("INSERT INTO setup_tokens (token_hash, created_at) VALUES (?, ?)")
            .bind(token_hash)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    pub async fn setup_token_exists(&self, token_hash: &str) -> Result<bool, StorageError> {
        let found: Option<i64> =
            sqlx::query_scalar("SELECT 1 FROM setup_tokens WHERE token_hash = ?")
                .bind(token_hash)
                .fetch_optional(&self.reader)
                .await?;
        Ok(found.is_some())
    }

    pub async fn create_user(&self, user: &NewUser) -> Result<(), StorageError> {
        insert_user(&self.writer, user).await
    }

    /// A user and their password hash, by username (any case).
    pub async fn user_by_name(
        &self,
        username: &str,
    ) -> Result<Option<(User, String)>, StorageError> {
        self.user_where("username = ?", username).await
    }

    pub async fn user_by_id(&self, id: &str) -> Result<Option<(User, String)>, StorageError> {
        self.user_where("id = ?", id).await
    }

    async fn user_where(
        &self,
        condition: &str,
        value: &str,
    ) -> Result<Option<(User, String)>, StorageError> {
        let row = sqlx::query(&format!(
            "SELECT id, username, is_admin, disabled_at, created_at, password_hash FROM users WHERE {condition}"
        ))
        .bind(value)
        .fetch_optional(&self.reader)
        .await?;
        row.map(|row| {
            let hash: String = row.try_get("password_hash")?;
            let user = <UserRow as sqlx::FromRow<_>>::from_row(&row)?;
            Ok((user.into(), hash))
        })
        .transpose()
        .map_err(|e: sqlx::Error| e.into())
    }

    pub async fn list_users(&self) -> Result<Vec<User>, StorageError> {
        let rows: Vec<UserRow> = sqlx::query_as(
            "SELECT id, username, is_admin, disabled_at, created_at FROM users ORDER BY created_at, username",
        )
        .fetch_all(&self.reader)
        .await?;
        Ok(rows.into_iter().map(User::from).collect())
    }

    /// Disables (ending every session, revoking every token) or enables a user; false if there is no such user.
    pub async fn set_disabled(
        &self,
        id: &str,
        disabled_at: Option<&str>,
    ) -> Result<bool, StorageError> {
        let mut tx = self.writer.begin().await?;
        let changed = sqlx::query("UPDATE users SET disabled_at = ? WHERE id = ?")
            .bind(disabled_at)
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if disabled_at.is_some() {
            // Its tokens too: enabling the account again brings none of them back.
            for table in ["sessions", "api_tokens"] {
                sqlx::query(&format!("DELETE FROM {table} WHERE user_id = ?"))
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
            }
        }
        tx.commit().await?;
        Ok(changed == 1)
    }

    /// A new password: every session of the user ends, with the tokens other sessions
    /// made (see `Store::set_password`).
    pub async fn set_password(
        &self,
        id: &str,
        hash: &str,
        now: &str,
        keep: Option<&str>,
        successor: &str,
    ) -> Result<(), StorageError> {
        let mut tx = self.writer.begin().await?;
        sqlx::query("UPDATE users SET password_hash = ?, password_changed_at = ? WHERE id = ?")
            .bind(hash)
            .bind(now)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM sessions WHERE user_id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        // No session's digest is empty: without a session to keep, every token ends.
        let keep = keep.unwrap_or("");
        sqlx::query(
            "DELETE FROM api_tokens WHERE user_id = ? AND (made_by IS NULL OR made_by <> ?)",
        )
        .bind(id)
        .bind(keep)
        .execute(&mut *tx)
        .await?;
        sqlx::query("UPDATE api_tokens SET made_by = ? WHERE user_id = ? AND made_by = ?")
            .bind(successor)
            .bind(id)
            .bind(keep)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    pub async fn create_invitation(
        &self,
        token_hash: &str,
        created_by: &str,
        now: &str,
        expires_at: &str,
    ) -> Result<(), StorageError> {
        sqlx::query(
            "INSERT INTO invitations (token_hash, created_by, created_at, expires_at) VALUES (?, ?, ?, ?)",
        )
        .bind(token_hash)
        .bind(created_by)
        .bind(now)
        .bind(expires_at)
        .execute(&self.writer)
        .await?;
        Ok(())
    }

    /// Uses an invitation once, making `user` with it; false if it was used or expired.
    pub async fn accept_invitation(
        &self,
        token_hash: &str,
        user: &NewUser,
    ) -> Result<bool, StorageError> {
        let mut tx = self.writer.begin_with("BEGIN IMMEDIATE").await?;
        let taken = sqlx::query(
            "UPDATE invitations SET used_at = ?, used_by = ? \
             WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?",
        )
        .bind(&user.created_at)
        .bind(&user.id)
        .bind(token_hash)
        .bind(&user.created_at)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if taken != 1 {
            return Ok(false);
        }
        insert_user(&mut *tx, user).await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Whether an invitation can still be used, read without the write lock.
    pub async fn invitation_open(&self, token_hash: &str, now: &str) -> Result<bool, StorageError> {
        let found: Option<i32> = sqlx::query_scalar(
            "SELECT 1 FROM invitations WHERE token_hash = ?1 AND used_at IS NULL AND expires_at > ?2",
        )
        .bind(token_hash)
        .bind(now)
        .fetch_optional(&self.reader)
        .await?;
        Ok(found.is_some())
    }
}
