//! The one way a write runs (the shape of zero2prod's `try_processing → NextAction`):
//!
//! 1. a committed answer for a key this process answered lately (a retry's) is replayed
//!    from a plain read — it never changes, so no write lock is needed; a key it has not
//!    (most likely new) skips the read, and step 3 finds any answer it holds;
//! 2. requests with the same key in this process wait for the first one (bounded), then
//!    read its answer;
//! 3. the backend ([`Backend::write`]) claims the key inside a write transaction — and
//!    the key is read and its answer replayed if another request finished first (PostgreSQL
//!    claims it first of all, by inserting its row; SQLite, which has one writer, when
//!    it stores the answer: a key that holds one already rolls the write back, and the
//!    answer there is replayed);
//! 4. the operation decides and writes inside that transaction and says what it did; the
//!    route's answer function turns that into the answer to keep;
//! 5. the backend stores the answer with the key and commits — the write and its answer
//!    become visible together or not at all, and the answer goes out only after the
//!    commit. A failure anywhere rolls everything back: 5xx answers are never stored.
//!    (SQLite commits writes that arrive together in one transaction, each in its own
//!    savepoint; PostgreSQL commits each on its own and runs it again after a conflict,
//!    and makes a create under a new key — an operation whose `lone_insert` says it is
//!    one new note — in one statement that holds steps 3–5, all of it or nothing.)

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use app::api::Note;

use super::{
    Answer, Applied, ClaimTicket, Fingerprint, IdempotencyKey, KeyGates, Pass, SavedAnswer,
    StoredAnswer,
};
use crate::error::ApiError;
use crate::health::WriteHealth;
use crate::storage::{Backend, DbFailure, LoneInsert, NoteWrites, StorageError, Store, Work};
use crate::timestamp;

/// A write that can run under an idempotency key: it decides and writes inside the
/// claimed transaction and says what it did, in the domain's terms. How that is told
/// over HTTP (status, `Location`, `ETag`) is the route's answer function's business.
pub trait Operation: Sync {
    /// What the write did.
    type Done: Send;

    /// The fingerprint of the request: what the key is being used for.
    fn fingerprint(&self) -> Fingerprint;

    /// Does the write inside the claimed transaction.
    fn apply<T: NoteWrites + Send>(
        &self,
        tx: &mut T,
        scope: &str,
        key: &IdempotencyKey,
    ) -> impl Future<Output = Result<Outcome<Self::Done>, ApiError>> + Send;

    /// When the key has never been used, is this write one new note and nothing else?
    /// Then the note, and what the write did in making it — the same as [`apply`] would
    /// do and say — so that a backend can make it without a transaction around it (see
    /// `storage::Work::lone_insert`). `apply` still runs whenever the key was used.
    ///
    /// [`apply`]: Operation::apply
    fn lone_insert(&self) -> Option<(Note, Self::Done)> {
        None
    }
}

/// What an operation did, and whether it had been done before.
pub struct Outcome<D> {
    pub done: D,
    /// The write had already been done under this key (its idempotency row had expired,
    /// the note or revision still carries the key): the answer describes that result and
    /// goes out as a replay.
    pub late: bool,
}

impl<D> Outcome<D> {
    /// A write done now.
    pub fn now(done: D) -> Self {
        Self { done, late: false }
    }

    /// A write done earlier under the same key, told again.
    pub fn late(done: D) -> Self {
        Self { done, late: true }
    }

    /// The same outcome, telling what was done another way.
    pub fn map<E>(self, f: impl FnOnce(D) -> E) -> Outcome<E> {
        Outcome {
            done: f(self.done),
            late: self.late,
        }
    }
}

/// What the pipeline works with: the database and the rules it keeps around it.
#[derive(Clone, Copy)]
pub struct Pipeline<'a> {
    pub store: &'a Store,
    pub rules: Rules<'a>,
}

/// The pipeline without its store: the in-process gates on keys, how long a key is kept
/// and waited for, and where refused writes are noted for `/healthz`.
#[derive(Clone, Copy)]
pub struct Rules<'a> {
    pub gates: &'a KeyGates,
    /// How long a request waits for another one with its key (PROTOCOL §Server 4).
    pub key_wait: Duration,
    /// How long a key's answer is kept.
    pub key_ttl: Duration,
    pub health: &'a WriteHealth,
}

/// Runs `operation` exactly once for `key` in `scope`, or replays the answer it gave;
/// `answer` tells what the operation did as the answer kept with the key.
pub async fn execute<O, F>(
    pipeline: Pipeline<'_>,
    scope: &str,
    key: &IdempotencyKey,
    operation: O,
    answer: F,
) -> Result<Answer, ApiError>
where
    O: Operation + Send + 'static,
    F: Fn(&O::Done) -> Result<StoredAnswer, ApiError> + Send + Sync + 'static,
{
    let work = Answered { operation, answer };
    match pipeline.store {
        Store::Sqlite(backend) => run_once(backend, pipeline.rules, scope, key, work).await,
        Store::Postgres(backend) => run_once(backend, pipeline.rules, scope, key, work).await,
    }
}

/// Runs `work` once under `key`, or replays the answer the key holds.
async fn run_once<B: Backend, W: Work>(
    backend: &B,
    rules: Rules<'_>,
    scope: &str,
    key: &IdempotencyKey,
    work: W,
) -> Result<Answer, ApiError> {
    let gate = format!("{scope}\n{key}");
    let answered = answer_once(backend, rules, scope, key, &gate, work).await;
    if matches!(answered, Ok(_) | Err(ApiError::IdempotencyKeyReused)) {
        // The key holds an answer now: a request with it again is read first.
        rules.gates.answered.remember(&gate);
    }
    answered
}

async fn answer_once<B: Backend, W: Work>(
    backend: &B,
    rules: Rules<'_>,
    scope: &str,
    key: &IdempotencyKey,
    gate: &str,
    work: W,
) -> Result<Answer, ApiError> {
    let fingerprint = work.fingerprint();
    // A key this process answered lately is most likely a retry's: its answer is read
    // first, off the write path. Any other key is most likely new and goes to the write,
    // which claims it; if the key held an answer after all (another process gave it, or
    // this one forgot it), the write is undone and that answer replayed (below).
    if rules.gates.answered.lately(gate)
        && let Some(saved) = backend.find_answer(scope, key).await?
    {
        return replay(saved, &fingerprint);
    }
    let _leading = match rules.gates.pass(gate, rules.key_wait).await? {
        Pass::Leader(held) => Some(held),
        Pass::Follower => {
            if let Some(saved) = backend.find_answer(scope, key).await? {
                return replay(saved, &fingerprint);
            }
            // The first request failed without storing anything: run afresh.
            None
        }
    };
    let now = timestamp::now();
    let ticket = ClaimTicket {
        scope: scope.to_owned(),
        key: key.clone(),
        fingerprint: fingerprint.clone(),
        created_at: timestamp::format(now),
        expires_at: timestamp::format(timestamp::after(now, rules.key_ttl)),
    };
    let written = backend
        .write(ticket, Arc::new(work))
        .await
        .map_err(ApiError::from);
    // `/healthz` hears what the write itself did: an answer it replayed wrote nothing.
    if !matches!(written, Ok(Answer { replayed: true, .. })) {
        rules.health.record(&written);
    }
    match written {
        Ok(answer) => Ok(answer),
        // Another request with this key may have finished before this write claimed it
        // (another process, or a retry this process did not remember): then its stored
        // answer is the one to give, and this write was rolled back. The failure says so
        // (`KeyTaken`), or may be the late write's view of what the first one did (a
        // refusal), or anything else that went wrong meanwhile: the key is read again
        // for every failure, and what it holds wins. (Not when the database cannot be
        // reached: the read would only wait for it again.)
        Err(failed) if failed.db_failure() == Some(DbFailure::Unavailable) => Err(failed),
        Err(failed) => match backend.find_answer(scope, key).await {
            Ok(Some(saved)) => replay(saved, &fingerprint),
            Ok(None) => Err(failed),
            // Whether the key holds an answer is unknown: not the write's refusal, which
            // may be a late retry's view, but the read's failure (503: retry the key).
            Err(unread) => Err(ApiError::from(unread)),
        },
    }
}

/// The answer a key holds, given again to a request with the same fingerprint; another
/// request under the key is 422 `idempotency-key-reused`.
fn replay(saved: SavedAnswer, fingerprint: &Fingerprint) -> Result<Answer, ApiError> {
    saved
        .replay_for(fingerprint)
        .ok_or(ApiError::IdempotencyKeyReused)
}

/// An operation with the function that tells what it did: the work the backend runs
/// inside the claimed transaction.
struct Answered<O, F> {
    operation: O,
    answer: F,
}

impl<O, F> Work for Answered<O, F>
where
    O: Operation + Send + 'static,
    F: Fn(&O::Done) -> Result<StoredAnswer, ApiError> + Send + Sync + 'static,
{
    fn fingerprint(&self) -> Fingerprint {
        self.operation.fingerprint()
    }

    async fn run<T: NoteWrites + Send>(
        &self,
        tx: &mut T,
        scope: &str,
        key: &IdempotencyKey,
    ) -> Result<Applied, StorageError> {
        // The operation's own refusals (404, 412, …) go through storage unchanged and
        // come back out of `Backend::write` as they went in.
        let outcome = self
            .operation
            .apply(tx, scope, key)
            .await
            .map_err(ApiError::into_storage)?;
        Ok(Applied {
            answer: (self.answer)(&outcome.done).map_err(ApiError::into_storage)?,
            late: outcome.late,
        })
    }

    fn lone_insert(&self) -> Option<LoneInsert> {
        let (note, done) = self.operation.lone_insert()?;
        // An answer that cannot be told goes the usual way, which tells the error.
        let answer = (self.answer)(&done).ok()?;
        Some(LoneInsert { note, answer })
    }
}

#[cfg(test)]
#[path = "pipeline/tests.rs"]
mod tests;
