//! The SQL of accounts on PostgreSQL: users, the first-admin row, setup links and
//! invitations. Every rule that must hold across replicas is a row the database
//! arbitrates: the `setup` row (one first admin), an invitation's `used_at` (one use).

use sqlx::Row;

use super::{PgStore, unstorable};
use crate::records::SHARED_SCOPE;
use crate::records::{NewUser, User};
use crate::storage::StorageError;
use crate::storage::rows::{SCOPED_TABLES, UserRow};

/// Usernames compare without ASCII case, exactly as SQLite's `COLLATE NOCASE` does (which
/// folds A–Z only): both databases take and refuse the same names, and a copy from one to
/// the other never meets a clash the first one allowed.
const ASCII_FOLD_USERNAME: &str =
    "translate(username, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')";
const ASCII_FOLD_PARAM: &str =
    "translate($1, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')";

/// A unique-constraint failure on the usernames: the name is taken.
fn taken(error: sqlx::Error) -> StorageError {
    match &error {
        sqlx::Error::Database(db) if db.constraint() == Some("users_username_unique") => {
            StorageError::UsernameTaken
        }
        _ => error.into(),
    }
}

async fn insert_user<'e>(
    executor: impl sqlx::PgExecutor<'e>,
    user: &NewUser,
) -> Result<(), StorageError> {
    sqlx::query(
        "INSERT INTO users (id, username, password_hash, is_admin, created_at, password_changed_at) \
         VALUES ($1, $2, $3, $4, $5, $5)",
    )
    .bind(&user.id)
    .bind(&user.username)
    .bind(&user.password_hash)
    .bind(user.admin)
    .bind(&user.created_at)
    .execute(executor)
    .await
    .map_err(taken)?;
    Ok(())
}

impl PgStore {
    pub async fn user_count(&self) -> Result<i64, StorageError> {
        Ok(sqlx::query_scalar("SELECT COUNT(*) FROM users")
            .fetch_one(&self.reader)
            .await?)
    }

    pub async fn setup_done(&self) -> Result<bool, StorageError> {
        let done: Option<i32> = sqlx::query_scalar("SELECT 1 FROM setup WHERE id = 1")
            .fetch_optional(&self.reader)
            .await?;
        Ok(done.is_some())
    }

    /// Makes `user` the first admin, if no one is yet. The setup row goes in first: a
    /// second setup (on any replica) blocks on it, then finds it and gives up — before
    /// touching the users, so even the same username cannot make it fail otherwise.
    pub async fn create_first_admin(&self, user: &NewUser) -> Result<bool, StorageError> {
        let mut tx = self.pool.begin().await?;
        let won = sqlx::query(
            "INSERT INTO setup (id, admin_id, done_at) VALUES (1, $1, $2) ON CONFLICT (id) DO NOTHING",
        )
        .bind(&user.id)
        .bind(&user.created_at)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if won != 1 {
            tx.rollback().await?;
            return Ok(false);
        }
        insert_user(&mut *tx, user).await?;
        for table in SCOPED_TABLES {
            sqlx::query(&format!("UPDATE {table} SET scope = $1 WHERE scope = $2"))
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
        let mut tx = self.pool.begin().await?;
        sqlx::query("DELETE FROM setup_tokens")
            .execute(&mut *tx)
            .await?;
        sqlx::query("INSERT INTO setup_tokens (token_hash, created_at) VALUES ($1, $2)")
            .bind(token_hash)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    pub async fn setup_token_exists(&self, token_hash: &str) -> Result<bool, StorageError> {
        let found: Option<i32> =
            sqlx::query_scalar("SELECT 1 FROM setup_tokens WHERE token_hash = $1")
                .bind(token_hash)
                .fetch_optional(&self.reader)
                .await?;
        Ok(found.is_some())
    }

    pub async fn create_user(&self, user: &NewUser) -> Result<(), StorageError> {
        insert_user(&self.pool, user).await
    }

    /// A user and their password hash, by username (any case).
    pub async fn user_by_name(
        &self,
        username: &str,
    ) -> Result<Option<(User, String)>, StorageError> {
        self.user_where(
            &format!("{ASCII_FOLD_USERNAME} = {ASCII_FOLD_PARAM}"),
            username,
        )
        .await
    }

    pub async fn user_by_id(&self, id: &str) -> Result<Option<(User, String)>, StorageError> {
        self.user_where("id = $1", id).await
    }

    async fn user_where(
        &self,
        condition: &str,
        value: &str,
    ) -> Result<Option<(User, String)>, StorageError> {
        if unstorable(value) {
            return Ok(None);
        }
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
            "SELECT id, username, is_admin, disabled_at, created_at FROM users \
             ORDER BY created_at, username",
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
        if unstorable(id) {
            return Ok(false);
        }
        let mut tx = self.pool.begin().await?;
        let changed = sqlx::query("UPDATE users SET disabled_at = $1 WHERE id = $2")
            .bind(disabled_at)
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if disabled_at.is_some() {
            // Its tokens too: enabling the account again brings none of them back.
            for table in ["sessions", "api_tokens"] {
                sqlx::query(&format!("DELETE FROM {table} WHERE user_id = $1"))
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
            }
        }
        tx.commit().await?;
        Ok(changed == 1)
    }

    /// A new password: every session of the user ends, with the tokens other sessions
    /// made (see `Store::set_password`). A token being made meanwhile either commits first
    /// (and is judged here) or checks its session after this commits, and finds it ended.
    pub async fn set_password(
        &self,
        id: &str,
        hash: &str,
        now: &str,
        keep: Option<&str>,
        successor: &str,
    ) -> Result<(), StorageError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("UPDATE users SET password_hash = $1, password_changed_at = $2 WHERE id = $3")
            .bind(hash)
            .bind(now)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM sessions WHERE user_id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        // No session's digest is empty: without a session to keep, every token ends.
        let keep = keep.unwrap_or("");
        sqlx::query(
            "DELETE FROM api_tokens WHERE user_id = $1 AND (made_by IS NULL OR made_by <> $2)",
        )
        .bind(id)
        .bind(keep)
        .execute(&mut *tx)
        .await?;
        sqlx::query("UPDATE api_tokens SET made_by = $1 WHERE user_id = $2 AND made_by = $3")
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
            "INSERT INTO invitations (token_hash, created_by, created_at, expires_at) \
             VALUES ($1, $2, $3, $4)",
        )
        .bind(token_hash)
        .bind(created_by)
        .bind(now)
        .bind(expires_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Uses an invitation once, making `user` with it; false if it was used or expired.
    /// A second use (on any replica) waits on the first one's row lock, then finds
    /// `used_at` set.
    pub async fn accept_invitation(
        &self,
        token_hash: &str,
        user: &NewUser,
    ) -> Result<bool, StorageError> {
        let mut tx = self.pool.begin().await?;
        let taken = sqlx::query(
            "UPDATE invitations SET used_at = $1, used_by = $2 \
             WHERE token_hash = $3 AND used_at IS NULL AND expires_at > $1",
        )
        .bind(&user.created_at)
        .bind(&user.id)
        .bind(token_hash)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if taken != 1 {
            tx.rollback().await?;
            return Ok(false);
        }
        insert_user(&mut *tx, user).await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Whether an invitation can still be used, read without the write lock.
    pub async fn invitation_open(&self, token_hash: &str, now: &str) -> Result<bool, StorageError> {
        let found: Option<i32> = sqlx::query_scalar(
            "SELECT 1 FROM invitations WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2",
        )
        .bind(token_hash)
        .bind(now)
        .fetch_optional(&self.reader)
        .await?;
        Ok(found.is_some())
    }
}
