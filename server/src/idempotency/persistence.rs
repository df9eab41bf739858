//! The idempotency table. A request *claims* its key inside a write transaction, with
//! the answer it is about to give already in the row; the handler inserts the note in
//! that same transaction and commits. Claim, note and answer become visible together or
//! not at all, and a committed answer never changes — so it can be replayed from a plain
//! read, without the write lock.

use std::time::Duration;

use sqlx::{Sqlite, SqlitePool, Transaction};

use super::{Fingerprint, IdempotencyKey};
use crate::error::{ApiError, is_busy};
use crate::timestamp;

/// The answer stored for a key, replayed byte for byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredResponse {
    pub status: u16,
    pub body: Vec<u8>,
    /// The note the answer is about (for `Location`).
    pub note_id: String,
}

/// What a request may do with its key.
#[derive(Debug)]
pub enum Claim {
    /// The key is new and now ours, with our answer: insert the note in this
    /// transaction, then [`commit`].
    Fresh(Transaction<'static, Sqlite>),
    /// The key already produced this answer for the same request: send it again.
    Replay(StoredResponse),
}

/// The committed answer for `key`, if any, read without the write lock. A key used
/// with another request is [`ApiError::IdempotencyKeyReused`].
pub async fn find_stored(
    pool: &SqlitePool,
    scope: &str,
    key: &IdempotencyKey,
    fingerprint: &Fingerprint,
) -> Result<Option<StoredResponse>, ApiError> {
    let row: Option<(String, i64, Vec<u8>, String)> = sqlx::query_as(
        "SELECT request_fingerprint, response_status, response_body, note_id FROM idempotency_keys \
         WHERE scope = ? AND idempotency_key = ?",
    )
    .bind(scope)
    .bind(key.as_str())
    .fetch_optional(pool)
    .await?;
    row.map(|row| stored_for(row, fingerprint)).transpose()
}

fn stored_for(
    (stored_fingerprint, status, body, note_id): (String, i64, Vec<u8>, String),
    fingerprint: &Fingerprint,
) -> Result<StoredResponse, ApiError> {
    if Fingerprint::from_stored(stored_fingerprint) != *fingerprint {
        return Err(ApiError::IdempotencyKeyReused);
    }
    Ok(StoredResponse {
        status: u16::try_from(status).map_err(|e| ApiError::Internal(e.into()))?,
        body,
        note_id,
    })
}

/// Claims `key` for a request with `fingerprint`, storing `answer` with the claim.
///
/// `BEGIN IMMEDIATE` takes SQLite's write lock before the claim, so a second request with
/// the same key waits (up to the busy timeout) for the first to commit, then finds its
/// stored answer. If the wait runs out, the answer is 409 `idempotency-key-in-use` with
/// `Retry-After`, and nothing is written.
pub async fn try_claim(
    pool: &SqlitePool,
    scope: &str,
    key: &IdempotencyKey,
    fingerprint: &Fingerprint,
    ttl: Duration,
    answer: &StoredResponse,
) -> Result<Claim, ApiError> {
    let mut tx = pool
        .begin_with("BEGIN IMMEDIATE")
        .await
        .map_err(in_use_if_busy)?;
    let now = timestamp::now();
    let expires_at = now + chrono::Duration::from_std(ttl).unwrap_or(chrono::Duration::days(1));
    let claimed = sqlx::query(
        "INSERT INTO idempotency_keys (scope, idempotency_key, request_fingerprint, note_id, \
         response_status, response_body, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) \
         ON CONFLICT (scope, idempotency_key) DO NOTHING",
    )
    .bind(scope)
    .bind(key.as_str())
    .bind(fingerprint.as_str())
    .bind(&answer.note_id)
    .bind(i64::from(answer.status))
    .bind(&answer.body)
    .bind(timestamp::format(now))
    .bind(timestamp::format(expires_at))
    .execute(&mut *tx)
    .await
    .map_err(in_use_if_busy)?
    .rows_affected()
        == 1;
    if claimed {
        return Ok(Claim::Fresh(tx));
    }
    let row: (String, i64, Vec<u8>, String) = sqlx::query_as(
        "SELECT request_fingerprint, response_status, response_body, note_id FROM idempotency_keys \
         WHERE scope = ? AND idempotency_key = ?",
    )
    .bind(scope)
    .bind(key.as_str())
    .fetch_one(&mut *tx)
    .await?;
    tx.rollback().await?;
    stored_for(row, fingerprint).map(Claim::Replay)
}

/// Replaces the answer stored with a claim (a late retry is answered with the note that
/// already exists, not the one the claim expected to create).
pub async fn replace_answer(
    tx: &mut Transaction<'static, Sqlite>,
    scope: &str,
    key: &IdempotencyKey,
    answer: &StoredResponse,
) -> Result<(), ApiError> {
    sqlx::query(
        "UPDATE idempotency_keys SET note_id = ?, response_status = ?, response_body = ? \
         WHERE scope = ? AND idempotency_key = ?",
    )
    .bind(&answer.note_id)
    .bind(i64::from(answer.status))
    .bind(&answer.body)
    .bind(scope)
    .bind(key.as_str())
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Commits the claim and everything written with it.
pub async fn commit(tx: Transaction<'static, Sqlite>) -> Result<(), ApiError> {
    tx.commit().await?;
    Ok(())
}

/// Deletes idempotency rows past their expiry; returns how many went.
pub async fn sweep_expired(pool: &SqlitePool) -> Result<u64, sqlx::Error> {
    let result = sqlx::query("DELETE FROM idempotency_keys WHERE expires_at < ?")
        .bind(timestamp::format(timestamp::now()))
        .execute(pool)
        .await?;
    Ok(result.rows_affected())
}

fn in_use_if_busy(error: sqlx::Error) -> ApiError {
    if is_busy(&error) {
        ApiError::IdempotencyKeyInUse
    } else {
        ApiError::Internal(error.into())
    }
}
