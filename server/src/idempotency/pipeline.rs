//! The one way a write runs (the shape of zero2prod's `try_processing → NextAction`):
//!
//! 1. a committed answer for the key is replayed from a plain read — it never changes,
//!    so no write lock is needed;
//! 2. requests with the same key in this process wait for the first one (bounded), then
//!    read its answer;
//! 3. the backend ([`Backend::write`]) claims the key inside a write transaction — and
//!    replays what the key already holds if another request finished first;
//! 4. the operation runs inside that transaction and returns its answer;
//! 5. the backend stores the answer with the key and commits — the write and its answer
//!    become visible together or not at all, and the answer goes out only after the
//!    commit. A failure anywhere rolls everything back: 5xx answers are never stored.
//!    (SQLite commits writes that arrive together in one transaction, each in its own
//!    savepoint; PostgreSQL commits each on its own and runs it again after a conflict.)

use std::future::Future;
use std::sync::Arc;

use super::{Answer, Fingerprint, IdempotencyKey, Pass, SavedAnswer, StoredAnswer};
use crate::error::ApiError;
use crate::state::AppState;
use crate::storage::{Backend, NoteWrites, Store};
use crate::timestamp;

/// A write that can run under an idempotency key.
pub trait Operation: Sync {
    /// The fingerprint of the request: what the key is being used for.
    fn fingerprint(&self) -> Fingerprint;

    /// Does the write inside the claimed transaction and returns the answer to store.
    fn apply<T: NoteWrites + Send>(
        &self,
        tx: &mut T,
        scope: &str,
        key: &IdempotencyKey,
    ) -> impl Future<Output = Result<Applied, ApiError>> + Send;
}

/// What an operation did.
pub struct Applied {
    pub answer: StoredAnswer,
    /// The write had already been done under this key (its idempotency row had expired,
    /// the note or revision still carries the key): the answer describes that result and
    /// goes out as a replay.
    pub late: bool,
}

/// The claim a write makes on its key.
#[derive(Clone, Debug)]
pub struct ClaimTicket {
    pub scope: String,
    pub key: IdempotencyKey,
    pub fingerprint: Fingerprint,
    pub created_at: String,
    pub expires_at: String,
}

/// What the backend found when it claimed the key inside its write transaction.
pub enum NextAction<Tx> {
    /// The key is new: run the operation in this transaction.
    Start(Tx),
    /// The key already holds a committed answer (another request finished first).
    ReturnSaved(SavedAnswer),
}

/// Runs `operation` exactly once for `key` in `scope`, or replays the answer it gave.
pub async fn execute<O: Operation + Send + 'static>(
    state: &AppState,
    scope: &str,
    key: &IdempotencyKey,
    operation: O,
) -> Result<Answer, ApiError> {
    match &state.store {
        Store::Sqlite(backend) => execute_on(backend, state, scope, key, operation).await,
        Store::Postgres(backend) => execute_on(backend, state, scope, key, operation).await,
    }
}

async fn execute_on<B: Backend, O: Operation + Send + 'static>(
    backend: &B,
    state: &AppState,
    scope: &str,
    key: &IdempotencyKey,
    operation: O,
) -> Result<Answer, ApiError> {
    let fingerprint = operation.fingerprint();
    if let Some(saved) = backend.find_answer(scope, key).await? {
        return saved.replay_for(&fingerprint);
    }
    let gate = format!("{scope}\n{key}");
    let _leading = match state.key_gates.pass(&gate, state.config.key_wait).await? {
        Pass::Leader(held) => Some(held),
        Pass::Follower => {
            if let Some(saved) = backend.find_answer(scope, key).await? {
                return saved.replay_for(&fingerprint);
            }
            // The first request failed without storing anything: run afresh.
            None
        }
    };
    let now = timestamp::now();
    let ticket = ClaimTicket {
        scope: scope.to_owned(),
        key: key.clone(),
        fingerprint,
        created_at: timestamp::format(now),
        expires_at: timestamp::format(timestamp::after(now, state.config.idempotency_ttl)),
    };
    let written = backend.write(ticket, Arc::new(operation)).await;
    state.write_health.record(&written);
    written
}

impl Applied {
    /// The answer that goes out for a write that just committed.
    pub fn into_answer(self) -> Answer {
        Answer {
            stored: self.answer,
            replayed: self.late,
        }
    }
}
