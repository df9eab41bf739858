//! Idempotency keys on SQLite: a committed answer read without the write lock, and a
//! write run under its claimed key in the writer's batch, its answer stored beside it.

use std::sync::Arc;

use sqlx::SqliteConnection;

use super::SqliteStore;
use super::note_writes::SqliteTx;
use crate::records::{Answer, ClaimTicket, Fingerprint, IdempotencyKey, SavedAnswer, StoredAnswer};
use crate::storage::StorageError;
use crate::storage::feed::Moved;
use crate::storage::{Backend, Work};

impl Backend for SqliteStore {
    async fn find_answer(
        &self,
        scope: &str,
        key: &IdempotencyKey,
    ) -> Result<Option<SavedAnswer>, StorageError> {
        saved_answer(&self.reader, scope, key).await
    }

    async fn write<W: Work>(
        &self,
        ticket: ClaimTicket,
        work: Arc<W>,
    ) -> Result<Answer, StorageError> {
        let scope = ticket.scope.clone();
        let answer = self
            .writes
            .write(Box::new(move |connection| {
                Box::pin(async move {
                    // Under the write lock no one else can claim the key between this
                    // read and the insert below.
                    if let Some(saved) =
                        saved_answer(&mut *connection, &ticket.scope, &ticket.key).await?
                    {
                        return saved
                            .replay_for(&ticket.fingerprint)
                            .ok_or(StorageError::KeyReused);
                    }
                    let applied = work
                        .run(&mut SqliteTx(&mut *connection), &ticket.scope, &ticket.key)
                        .await?;
                    store_answer(connection, &ticket, &applied.answer).await?;
                    Ok(applied.into_answer())
                })
            }))
            .await;
        if answer.is_ok() {
            // Committed: the person's streams read their feed again.
            self.feed.raise(Moved::Person(scope));
        }
        answer
    }
}

/// Keeps a write's answer with its key (in the write's transaction).
async fn store_answer(
    connection: &mut SqliteConnection,
    ticket: &ClaimTicket,
    answer: &StoredAnswer,
) -> Result<(), StorageError> {
    sqlx::query(
        "INSERT INTO idempotency_keys (scope, idempotency_key, request_fingerprint, \
         response_status, response_headers, response_body, created_at, expires_at) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&ticket.scope)
    .bind(ticket.key.as_str())
    .bind(ticket.fingerprint.as_str())
    .bind(i64::from(answer.status))
    .bind(answer.headers_json())
    .bind(&answer.body)
    .bind(&ticket.created_at)
    .bind(&ticket.expires_at)
    .execute(connection)
    .await?;
    Ok(())
}

async fn saved_answer<'e>(
    executor: impl sqlx::SqliteExecutor<'e>,
    scope: &str,
    key: &IdempotencyKey,
) -> Result<Option<SavedAnswer>, StorageError> {
    let row: Option<(String, i64, String, Vec<u8>)> = sqlx::query_as(
        "SELECT request_fingerprint, response_status, response_headers, response_body \
         FROM idempotency_keys WHERE scope = ? AND idempotency_key = ?",
    )
    .bind(scope)
    .bind(key.as_str())
    .fetch_optional(executor)
    .await?;
    row.map(|(fingerprint, status, headers, body)| {
        Ok(SavedAnswer {
            fingerprint: Fingerprint::from_stored(fingerprint),
            answer: StoredAnswer::from_stored(status, &headers, body)?,
        })
    })
    .transpose()
}
