//! Group commit: one thread writes, and the writes that arrive together share one commit.
//!
//! Every idempotent write is a job sent to this thread. The thread writes on a connection
//! of its own, whose handle it holds for the connection's life ([`handle::hold`]). For a
//! batch it opens one `BEGIN IMMEDIATE` transaction, runs
//! the first job in it (if that one fails, the transaction is rolled back: nothing else
//! was in it), then every job that queued meanwhile (up to the batch size), each in its
//! own savepoint — a job that fails rolls back to its savepoint alone — and commits
//! once: one fsync (`synchronous=FULL`) for the whole batch. Only then is any job
//! answered, so no answer ever goes out for a write that is not on disk, and a crash
//! before the commit leaves none of the batch behind.
//!
//! The jobs' statements are calls into SQLite on this thread, not trips to sqlx's worker
//! thread, and each is prepared once for the connection's life, not once per batch: a
//! lone create spent a third of its instructions preparing its statements when the
//! handle was lent from sqlx's pool for each batch (callgrind, 2026-12-05).
//!
//! The store's other writes (accounts, sessions, files, sweeps) run on sqlx's write pool
//! of one connection. Each batch takes that connection too, unused, for its turn: the
//! process's writes take turns first come, first served (sqlx's pool queue), as they did
//! when the batch wrote on it, rather than racing for SQLite's write lock, whose busy
//! handler polls (up to 100 ms apart) and lets a steady stream of writes on one
//! connection starve the other. SQLite's lock (`BEGIN IMMEDIATE`, the busy timeout
//! `key_wait`) still keeps writes of other processes on the same file apart.
//!
//! Nothing waits for company: a lone job is committed at once. A batch takes the jobs
//! that queued while the previous commit ran, and those arriving while it runs its own,
//! so under load the fsyncs are shared, and without load nothing changes. The thread owns
//! the transaction, so a client that goes away mid-write cannot leave a batch open.
//!
//! Waits stay bounded as before: a job that waited longer than `key_wait` for its turn
//! is answered 503 `database-busy` without running (the client retries with its key), and
//! when the write lock cannot be had every job queued is answered so at once. A connection
//! whose transaction ended in an unknown state (a failed rollback or commit: disk full, an
//! I/O error) is closed, never reused.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rusqlite::Connection;
use sqlx::SqlitePool;
use sqlx::sqlite::SqliteConnectOptions;
use tokio::sync::{mpsc, oneshot};

use super::handle::{Lent, hold};
use crate::records::Answer;
use crate::storage::{DbFailure, StorageError};

/// One write, run on the batch's connection inside its own savepoint.
pub type WriteJob = Box<dyn FnOnce(&mut Lent) -> Result<Answer, StorageError> + Send>;

/// Where a job's answer goes.
type Reply = oneshot::Sender<Result<Answer, StorageError>>;

/// A job that ran: its reply, and what it did (`Ok(Some)`: an answer waiting for the
/// commit; `Ok(None)`: not run to the end; `Err`: rolled back, final).
type Ran = (Reply, Result<Option<Answer>, StorageError>);

struct Queued {
    job: WriteJob,
    reply: Reply,
    since: Instant,
}

/// The way to the writing thread. Cloned by every handle of the store; the thread ends
/// when the last one is dropped.
#[derive(Clone)]
pub struct WriteQueue {
    jobs: mpsc::Sender<Queued>,
    commits: Arc<AtomicU64>,
    /// Ends (with an error) when the writing thread has ended: awaited by
    /// [`WriteQueue::close`].
    ended: Arc<tokio::sync::Mutex<oneshot::Receiver<()>>>,
}

/// How many jobs may wait for the writer before a sender waits for room.
const QUEUE_ROOM: usize = 4096;

impl WriteQueue {
    /// Starts the writing thread, which writes on a connection of its own opened with
    /// `options`, each batch in its turn on `turn` (the write pool, whose one connection
    /// the store's other writes use), committing at most `batch` jobs at a time; a job
    /// waits at most `key_wait` for its turn. Called inside the runtime, whose timers the
    /// pool's waits use.
    pub fn start(
        options: SqliteConnectOptions,
        turn: SqlitePool,
        batch: usize,
        key_wait: Duration,
    ) -> Self {
        let (jobs, queued) = mpsc::channel(QUEUE_ROOM);
        let commits = Arc::new(AtomicU64::new(0));
        let writer = Writer {
            options,
            turn,
            runtime: tokio::runtime::Handle::current(),
            batch: batch.max(1),
            key_wait,
            commits: commits.clone(),
        };
        let (ending, ended) = oneshot::channel::<()>();
        std::thread::Builder::new()
            .name("sqlite-writer".into())
            .spawn(move || {
                writer.run(queued);
                // The thread's connection is closed: whoever waits in `close` goes on.
                drop(ending);
            })
            .expect("could not start the SQLite writing thread");
        Self {
            jobs,
            commits,
            ended: Arc::new(tokio::sync::Mutex::new(ended)),
        }
    }

    /// Ends the writing thread, once its turn (the write pool) is closed: the thread
    /// closes its connection — the process's last, so SQLite folds the WAL into the
    /// database file, and the file alone holds every write — and every write after this
    /// is refused. Returns when the thread has ended.
    pub async fn close(&self) {
        // Wakes the thread if it waits for a write: a write refused, as the turn is closed
        // (queued even behind a full queue; not at all if the thread has ended).
        let (reply, _answer) = oneshot::channel();
        let wake = Queued {
            job: Box::new(|_| Err(StorageError::Unavailable)),
            reply,
            since: Instant::now(),
        };
        let _ = self.jobs.send(wake).await;
        let _ = (&mut *self.ended.lock().await).await;
    }

    /// Whether the writing thread still runs (it ends at [`WriteQueue::close`], with the
    /// last handle, or by a bug): `/healthz` is 503 without it.
    pub fn is_running(&self) -> bool {
        !self.jobs.is_closed()
    }

    /// How many batches have been committed since the start.
    pub fn commits(&self) -> u64 {
        self.commits.load(Ordering::Relaxed)
    }

    /// Runs `job` in the next batch; answers once the batch is committed (or the job
    /// failed and was rolled back).
    pub async fn write(&self, job: WriteJob) -> Result<Answer, StorageError> {
        let (reply, answer) = oneshot::channel();
        let queued = Queued {
            job,
            reply,
            since: Instant::now(),
        };
        match self.jobs.try_send(queued) {
            Ok(()) => {}
            // So many writes are waiting that this one would wait past any bound.
            Err(mpsc::error::TrySendError::Full(_)) => return Err(StorageError::Busy),
            // The store is closed (a request outliving the shutdown's grace): 503, retry.
            Err(mpsc::error::TrySendError::Closed(_)) => return Err(StorageError::Unavailable),
        }
        answer.await.map_err(|_| stopped())?
    }
}

fn stopped() -> StorageError {
    StorageError::Other(anyhow::anyhow!("the database writer has stopped"))
}

/// The writing thread's settings.
struct Writer {
    /// How the writer's own connection is opened.
    options: SqliteConnectOptions,
    /// The write pool: holding its one connection is the process's turn to write.
    turn: SqlitePool,
    /// The runtime the connection's opening and closing, and the turn's waits, run on.
    runtime: tokio::runtime::Handle,
    batch: usize,
    key_wait: Duration,
    commits: Arc<AtomicU64>,
}

impl Writer {
    fn run(self, mut queued: mpsc::Receiver<Queued>) {
        // Inside the runtime's context, so that whatever a job calls finds it.
        let _runtime = self.runtime.enter();
        while let Some(first) = queued.blocking_recv() {
            let Some(first) = self.next_in_time(&mut queued, Some(first)) else {
                // Every job had waited too long (the wake of `close` among them).
                if self.turn.is_closed() {
                    return;
                }
                continue;
            };
            // The connection is opened when a write comes, and kept for the writes after
            // it until its state is unknown (then closed, and the next write opens one).
            let mut first = Some(first);
            let held = hold(&self.runtime, &self.options, |connection| {
                let mut next = first.take();
                while let Some(job) = next.take().or_else(|| queued.blocking_recv()) {
                    if let Some(job) = self.next_in_time(&mut queued, Some(job)) {
                        self.batch_in_turn(connection, &mut queued, job);
                    }
                    if connection.is_discarded()
                        || !connection.is_autocommit()
                        || self.turn.is_closed()
                    {
                        return;
                    }
                }
            });
            if let Err(error) = held {
                // The connection could not be opened (or its handle had).
                if let Some(first) = first {
                    refuse_all_queued(&mut queued, first, error.into());
                }
            }
            if self.turn.is_closed() {
                // The store is closing (`WriteQueue::close`); the connection is closed.
                return;
            }
        }
    }

    /// The next job that has not waited past its bound; the late ones are answered 503.
    fn next_in_time(
        &self,
        queued: &mut mpsc::Receiver<Queued>,
        first: Option<Queued>,
    ) -> Option<Queued> {
        let mut candidate = first.or_else(|| queued.try_recv().ok());
        while let Some(job) = candidate {
            if job.since.elapsed() <= self.key_wait {
                return Some(job);
            }
            let _ = job.reply.send(Err(StorageError::Busy));
            candidate = queued.try_recv().ok();
        }
        None
    }

    /// The next job for a batch that holds `held` jobs, while it has room.
    fn next_after(&self, queued: &mut mpsc::Receiver<Queued>, held: usize) -> Option<Queued> {
        if held < self.batch {
            self.next_in_time(queued, None)
        } else {
            None
        }
    }

    /// One batch, in the process's turn to write: the write pool's one connection is
    /// taken (waiting at most `key_wait`, in line with the store's other writes: sqlx's
    /// pool is first come, first served) and held, unused, until the batch is answered.
    fn batch_in_turn(
        &self,
        connection: &mut Lent,
        queued: &mut mpsc::Receiver<Queued>,
        first: Queued,
    ) {
        let turn = match self.runtime.block_on(self.turn.acquire()) {
            Ok(turn) => turn,
            Err(error) => return refuse_all_queued(queued, first, BatchFailure::turn(error)),
        };
        if let Some(writes) = self.batch_on(connection, queued, first) {
            tracing::debug!(writes, "committed a batch of writes");
        }
        drop(turn);
    }

    /// One transaction on the write connection: `first`, then whatever is queued, up to
    /// `batch` jobs; one commit. Returns how many jobs the commit held (`None`: nothing
    /// was committed).
    fn batch_on(
        &self,
        connection: &mut Lent,
        queued: &mut mpsc::Receiver<Queued>,
        first: Queued,
    ) -> Option<usize> {
        if let Err(error) = execute(connection, "BEGIN IMMEDIATE") {
            refuse_all_queued(queued, first, error.into());
            return None;
        }
        // Each job's reply with what it did: `Ok(Some(answer))` waits for the commit,
        // `Err` (rolled back to its savepoint) is final.
        let mut done: Vec<Ran> = Vec::new();
        // The first job runs in the transaction itself, with no savepoint: nothing else
        // is in it yet, so when it fails, rolling the whole transaction back undoes just
        // what a savepoint would have, and the jobs behind it start a batch of their own.
        // A lone write costs no savepoint statements.
        let Queued { job, reply, .. } = first;
        match run_guarded(connection, job) {
            Ok(answer) => done.push((reply, Ok(Some(answer)))),
            Err(failure) => {
                // A rollback that fails leaves the connection's state unknown: it is not
                // used again. (A full disk has rolled the transaction back already.)
                if !connection.is_autocommit() && execute(connection, "ROLLBACK").is_err() {
                    connection.discard();
                }
                let _ = reply.send(Err(failure));
                return None;
            }
        }
        let mut next = self.next_after(queued, done.len());
        while let Some(Queued { job, reply, .. }) = next {
            match run_in_savepoint(connection, job) {
                Ok(outcome) => done.push((reply, outcome.map(Some))),
                Err(failed) => {
                    // A savepoint could not be opened, released or rolled back: the batch
                    // is in an unknown state, so none of it is kept, and the connection
                    // (whose transaction state is unknown too) is not used again.
                    let _ = execute(connection, "ROLLBACK");
                    connection.discard();
                    done.push((reply, Ok(None)));
                    answer_all(done, Some(failed.into_batch_failure()));
                    return None;
                }
            }
            next = self.next_after(queued, done.len());
        }
        let writes = done.len();
        let committed = execute(connection, "COMMIT");
        match committed {
            // Counted before anyone is answered, so an answer implies the count.
            Ok(()) => {
                self.commits.fetch_add(1, Ordering::Relaxed);
            }
            Err(_) => connection.discard(),
        }
        let ok = committed.is_ok();
        answer_all(done, committed.err().map(BatchFailure::from));
        ok.then_some(writes)
    }
}

/// Runs one statement of the batch's own (prepared once per connection).
fn execute(connection: &Connection, sql: &str) -> Result<(), rusqlite::Error> {
    connection.prepare_cached(sql)?.execute([])?;
    Ok(())
}

/// The write lock (or the connection) could not be had within its bound: `first` and
/// every job queued behind it are answered with the reason now, rather than each waiting
/// its own full bound in turn.
fn refuse_all_queued(queued: &mut mpsc::Receiver<Queued>, first: Queued, failure: BatchFailure) {
    let mut refused = vec![(first.reply, Ok(None))];
    while let Ok(job) = queued.try_recv() {
        refused.push((job.reply, Ok(None)));
    }
    answer_all(refused, Some(failure));
}

/// Why a batch was not committed, as every job of it is answered.
struct BatchFailure {
    class: DbFailure,
    message: String,
}

impl BatchFailure {
    /// The turn to write not had: past `key_wait`, the process's other writes held it,
    /// a lock not free in time (503 `database-busy`, as when SQLite's own lock is not),
    /// not a database out of reach.
    fn turn(error: sqlx::Error) -> Self {
        let timed_out = matches!(error, sqlx::Error::PoolTimedOut);
        let mut failure = Self::from(error);
        if timed_out {
            failure.class = DbFailure::Busy;
        }
        failure
    }
}

impl From<sqlx::Error> for BatchFailure {
    fn from(error: sqlx::Error) -> Self {
        Self {
            class: DbFailure::of(&error),
            message: error.to_string(),
        }
    }
}

impl From<rusqlite::Error> for BatchFailure {
    fn from(error: rusqlite::Error) -> Self {
        Self {
            class: DbFailure::of_rusqlite(&error),
            message: error.to_string(),
        }
    }
}

/// A savepoint that could not be opened, released or rolled back, and what the job in it
/// had failed with, if it had.
struct SavepointFailed {
    error: rusqlite::Error,
    job_failure: Option<StorageError>,
}

impl SavepointFailed {
    /// The job's own failure says more than the savepoint's when it is the database's: a
    /// full disk (SQLITE_FULL) makes SQLite roll the whole transaction back, and the
    /// savepoint then is gone ("no such savepoint").
    fn into_batch_failure(self) -> BatchFailure {
        let mut failure = BatchFailure::from(self.error);
        if let Some(class) = self.job_failure.as_ref().and_then(StorageError::failure) {
            failure.class = class;
        }
        failure
    }
}

impl From<rusqlite::Error> for SavepointFailed {
    fn from(error: rusqlite::Error) -> Self {
        Self {
            error,
            job_failure: None,
        }
    }
}

/// Runs a job inside a savepoint: released if the job succeeded, rolled back if it failed
/// (or panicked). The outer `Err` is a failure of the savepoint itself.
fn run_in_savepoint(
    connection: &mut Lent,
    job: WriteJob,
) -> Result<Result<Answer, StorageError>, SavepointFailed> {
    execute(connection, "SAVEPOINT job")?;
    match run_guarded(connection, job) {
        Ok(answer) => {
            execute(connection, "RELEASE job")?;
            Ok(Ok(answer))
        }
        Err(job_failure) => {
            let rolled_back = execute(connection, "ROLLBACK TO job")
                .and_then(|()| execute(connection, "RELEASE job"));
            match rolled_back {
                Ok(()) => Ok(Err(job_failure)),
                Err(error) => Err(SavepointFailed {
                    error,
                    job_failure: Some(job_failure),
                }),
            }
        }
    }
}

/// Runs a job on `connection`; a panic anywhere in it is its failure.
fn run_guarded(connection: &mut Lent, job: WriteJob) -> Result<Answer, StorageError> {
    std::panic::catch_unwind(AssertUnwindSafe(|| job(connection))).unwrap_or_else(|_| {
        Err(StorageError::Other(anyhow::anyhow!(
            "a write panicked; it was rolled back"
        )))
    })
}

/// Sends every reply: each job's own answer, or — when the batch was not committed — the
/// reason for every job that had succeeded (its write is not on disk; the client retries
/// with the same key).
fn answer_all(done: Vec<Ran>, failure: Option<BatchFailure>) {
    if let Some(BatchFailure { class, message }) = &failure
        && *class != DbFailure::StorageFull
    {
        // A full disk is logged once a minute by the answer's own log line.
        tracing::warn!(?class, error = %message, "a batch of writes was not committed");
    }
    for (reply, outcome) in done {
        let answer = match (outcome, &failure) {
            (Err(error), _) => Err(error),
            (Ok(Some(answer)), None) => Ok(answer),
            // A pool closed at shutdown is "unavailable": the client retries, the next
            // server answers.
            (Ok(_), Some(BatchFailure { class, message })) => {
                Err(class.into_error(|| anyhow::anyhow!("the write was not committed: {message}")))
            }
            (Ok(None), None) => Err(stopped()),
        };
        // A client that went away no longer listens; its write stands.
        let _ = reply.send(answer);
    }
}

#[cfg(test)]
mod tests;
