//! Idempotency keys on SQLite: a committed answer read without the write lock, and a
//! write run in the writer's batch that claims its key by storing its answer beside it.

use std::sync::Arc;

use rusqlite::{Connection, params};

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
                // No read of the key first: the key is claimed by storing its answer
                // below, under the write lock. A key that holds an answer already
                // (another request finished first) makes that insert do nothing, and
                // this write is rolled back and told so; the pipeline replays the
                // answer that is there.
                let applied = ready_now(work.run(
                    &mut SqliteTx(&mut *connection),
                    &ticket.scope,
                    &ticket.key,
                ))?;
                if !store_answer(connection, &ticket, &applied.answer)? {
                    return Err(StorageError::KeyTaken);
                }
                Ok(applied.into_answer())
            }))
            .await;
        if answer.is_ok() {
            // Committed: the person's streams read their feed again.
            self.feed.raise(Moved::Person(scope));
        }
        answer
    }
}

/// The outcome of a write's work, which must be ready at once: its storage calls are
/// SQLite calls on the writing thread. Work that waits for anything else would hold the
/// write lock — every writer of the database — for as long as it waits; it fails instead.
fn ready_now<T>(
    work: impl std::future::Future<Output = Result<T, StorageError>>,
) -> Result<T, StorageError> {
    futures::FutureExt::now_or_never(work).unwrap_or_else(|| {
        Err(StorageError::Other(anyhow::anyhow!(
            "a write waited for something besides SQLite inside the write lock; it was rolled back"
        )))
    })
}

/// Keeps a write's answer with its key (in the write's transaction); false if the key
/// holds an answer already.
fn store_answer(
    connection: &Connection,
    ticket: &ClaimTicket,
    answer: &StoredAnswer,
) -> Result<bool, StorageError> {
    let stored = connection
        .prepare_cached(
            "INSERT INTO idempotency_keys (scope, idempotency_key, request_fingerprint, \
             response_status, response_headers, response_body, created_at, expires_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (scope, idempotency_key) DO NOTHING",
        )?
        .execute(params![
            ticket.scope,
            ticket.key.as_str(),
            ticket.fingerprint.as_str(),
            i64::from(answer.status),
            answer.headers_json(),
            answer.body,
            ticket.created_at,
            ticket.expires_at,
        ])?;
    Ok(stored == 1)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_that_would_wait_inside_the_write_lock_fails_instead_of_holding_it() {
        let waits = ready_now(futures::future::pending::<Result<(), StorageError>>());
        assert!(matches!(waits, Err(StorageError::Other(_))));
        assert_eq!(ready_now(async { Ok::<_, StorageError>(7) }).unwrap(), 7);
    }
}
