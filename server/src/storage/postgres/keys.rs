//! Idempotency keys on PostgreSQL: a committed answer read from the reading pool, and a
//! write run under the key it claims by inserting the key's row, run again after a
//! conflict, its answer stored in that row.

use std::sync::Arc;

use sqlx::Postgres;
use sqlx::postgres::PgArguments;

use super::PgStore;
use super::changes::{RECORD_CHANGES, by_person, record_changes};
use super::note_writes::PgTx;
use crate::records::{
    Answer, ClaimTicket, Fingerprint, IdempotencyKey, NextAction, SavedAnswer, StoredAnswer,
};
use crate::storage::StorageError;
use crate::storage::feed::Moved;
use crate::storage::{Backend, Work};

/// How many times a write whose transaction PostgreSQL aborted for a conflict with
/// another (a deadlock, a serialization failure) is run again, from the start, before
/// the client is told the database is busy (it retries with the same key).
const CONFLICT_RETRIES: u32 = 5;

impl Backend for PgStore {
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
        if let Some(insert) = work.lone_insert() {
            // A create under a new key: one statement, committed on its own. A key used
            // meanwhile, or a conflict with another transaction, goes the usual way below.
            if let Some(answer) = self.insert_alone(&ticket, insert).await? {
                return Ok(answer);
            }
        }
        let mut conflicts = 0;
        loop {
            let attempt = async {
                match self.claim(&ticket).await? {
                    NextAction::ReturnSaved(saved) => saved
                        .replay_for(&ticket.fingerprint)
                        .ok_or(StorageError::KeyReused),
                    NextAction::Start(mut tx) => {
                        let applied = work.run(&mut tx, &ticket.scope, &ticket.key).await?;
                        self.store_answer(tx, &ticket, &applied.answer).await?;
                        Ok(applied.into_answer())
                    }
                }
            };
            match attempt.await {
                // Nothing of the aborted attempt was kept: run it again.
                Err(StorageError::Conflict) if conflicts < CONFLICT_RETRIES => {
                    conflicts += 1;
                    tracing::info!(key = %ticket.key, conflicts, "transaction conflict; running the write again");
                }
                Err(StorageError::Conflict) => return Err(StorageError::Busy),
                other => return other,
            }
        }
    }
}

impl PgStore {
    /// Begins a write transaction and claims the key in it. (Its lock waits are bounded
    /// by `key_wait`: the write pool's connections carry that `lock_timeout`, `open`.)
    async fn claim(&self, ticket: &ClaimTicket) -> Result<NextAction<PgTx>, StorageError> {
        let mut tx = self.pool.begin().await?;
        // The claim: blocks while another transaction holds an uncommitted claim on the
        // key; does nothing when a committed one exists.
        let claimed = sqlx::query(
            "INSERT INTO idempotency_keys (scope, idempotency_key, request_fingerprint, \
             response_status, response_headers, response_body, created_at, expires_at) \
             VALUES ($1, $2, $3, 0, '[]', '', $4, $5) \
             ON CONFLICT (scope, idempotency_key) DO NOTHING",
        )
        .bind(&ticket.scope)
        .bind(ticket.key.as_str())
        .bind(ticket.fingerprint.as_str())
        .bind(&ticket.created_at)
        .bind(&ticket.expires_at)
        .execute(&mut *tx)
        .await
        .map_err(|error| {
            let lock_timeout = matches!(&error, sqlx::Error::Database(db) if db.code().as_deref() == Some("55P03"));
            if lock_timeout {
                // Waited `key_wait` for the other request with this key: it is still running.
                StorageError::KeyInUse
            } else {
                StorageError::from(error)
            }
        })?
        .rows_affected();
        if claimed == 1 {
            return Ok(NextAction::Start(PgTx(tx, Vec::new())));
        }
        // A committed answer is there (READ COMMITTED: this statement sees it).
        let saved = saved_answer(&mut *tx, &ticket.scope, &ticket.key).await?;
        tx.rollback().await?;
        match saved {
            Some(saved) => Ok(NextAction::ReturnSaved(saved)),
            // Swept between the two statements: the client retries with the same key.
            None => Err(StorageError::Conflict),
        }
    }

    /// Stores `answer` with the claim and commits everything the transaction wrote. The
    /// changes of the key's own person (a write's only ones) are left in the same
    /// statement as the answer: one trip, not two.
    async fn store_answer(
        &self,
        tx: PgTx,
        ticket: &ClaimTicket,
        answer: &StoredAnswer,
    ) -> Result<(), StorageError> {
        let PgTx(mut tx, changes) = tx;
        let mut people = by_person(&changes);
        let own = match people.as_slice() {
            [only] if only.scope == ticket.scope => people.pop(),
            _ => {
                record_changes(&mut tx, &changes).await?;
                None
            }
        };
        let stored = match &own {
            Some(person) => {
                let sql = format!(
                    "{RECORD_CHANGES} UPDATE idempotency_keys SET response_status = $7, \
                     response_headers = $8, response_body = $9 \
                     WHERE scope = $1 AND idempotency_key = $6"
                );
                let query = person.bind(sqlx::query(&sql)).bind(ticket.key.as_str());
                bind_answer(query, answer).execute(&mut *tx).await?
            }
            None => {
                let query = sqlx::query(
                    "UPDATE idempotency_keys SET response_status = $3, response_headers = $4, \
                     response_body = $5 WHERE scope = $1 AND idempotency_key = $2",
                )
                .bind(&ticket.scope)
                .bind(ticket.key.as_str());
                bind_answer(query, answer).execute(&mut *tx).await?
            }
        }
        .rows_affected();
        if stored != 1 {
            // The claim is gone from under this transaction: commit nothing.
            tx.rollback().await?;
            return Err(StorageError::Other(anyhow::anyhow!(
                "the claim on key {} was not found when its answer was stored",
                ticket.key
            )));
        }
        tx.commit().await?;
        if !changes.is_empty() {
            self.announce_after_commit(&ticket.scope);
        }
        Ok(())
    }

    /// After a commit that changed `scope`'s notes (see `changes`): every replica's
    /// streams of this person look, without the answer waiting for the notification
    /// (`announcer`: sent with the others' of the moment, in one statement). This
    /// process's own streams are woken now, not when the notification comes back.
    pub(super) fn announce_after_commit(&self, scope: &str) {
        self.feed.raise(Moved::Person(scope.to_owned()));
        self.announcer.feed_moved(scope);
    }
}

/// Binds the answer's status, headers and body, in that order.
fn bind_answer<'q>(
    query: sqlx::query::Query<'q, Postgres, PgArguments>,
    answer: &'q StoredAnswer,
) -> sqlx::query::Query<'q, Postgres, PgArguments> {
    query
        .bind(i32::from(answer.status))
        .bind(answer.headers_json())
        .bind(&answer.body)
}

async fn saved_answer<'e>(
    executor: impl sqlx::PgExecutor<'e>,
    scope: &str,
    key: &IdempotencyKey,
) -> Result<Option<SavedAnswer>, StorageError> {
    let row: Option<(String, i32, String, Vec<u8>)> = sqlx::query_as(
        "SELECT request_fingerprint, response_status, response_headers, response_body \
         FROM idempotency_keys WHERE scope = $1 AND idempotency_key = $2 AND response_status > 0",
    )
    .bind(scope)
    .bind(key.as_str())
    .fetch_optional(executor)
    .await?;
    row.map(|(fingerprint, status, headers, body)| {
        Ok(SavedAnswer {
            fingerprint: Fingerprint::from_stored(fingerprint),
            answer: StoredAnswer::from_stored(i64::from(status), &headers, body)?,
        })
    })
    .transpose()
}
