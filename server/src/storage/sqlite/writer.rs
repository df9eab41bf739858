//! Group commit: one task writes, and the writes that arrive together share one commit.
//!
//! Every idempotent write is a job sent to this task. The task takes the write
//! connection, opens one `BEGIN IMMEDIATE` transaction, runs the first job in it (if that
//! one fails, the transaction is rolled back: nothing else was in it), then every job
//! that queued meanwhile (up to the batch size), each in its own savepoint — a job that
//! fails rolls back to its savepoint alone — and commits once: one fsync
//! (`synchronous=FULL`) for the whole batch. Only then is any job answered, so no
//! answer ever goes out for a write that is not on disk, and a crash before the commit
//! leaves none of the batch behind.
//!
//! Nothing waits for company: a lone job is committed at once. A batch takes the jobs
//! that queued while the previous commit ran, and those arriving while it runs its own,
//! so under load the fsyncs are shared, and without load nothing changes. The task owns
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

use futures::FutureExt;
use futures::future::BoxFuture;
use sqlx::{Connection, SqliteConnection, SqlitePool};
use tokio::sync::{mpsc, oneshot};

use crate::records::Answer;
use crate::storage::{DbFailure, StorageError};

/// One write, run with the batch's connection inside its own savepoint.
pub type WriteJob = Box<
    dyn for<'c> FnOnce(&'c mut SqliteConnection) -> BoxFuture<'c, Result<Answer, StorageError>>
        + Send,
>;

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

/// The way to the writing task. Cloned by every handle of the store; the task ends when
/// the last one is dropped.
#[derive(Clone)]
pub struct WriteQueue {
    jobs: mpsc::Sender<Queued>,
    commits: Arc<AtomicU64>,
}

/// How many jobs may wait for the writer before a sender waits for room.
const QUEUE_ROOM: usize = 4096;

impl WriteQueue {
    /// Starts the writing task on `pool` (the store's one write connection), committing
    /// at most `batch` jobs at a time; a job waits at most `key_wait` for its turn.
    pub fn start(pool: SqlitePool, batch: usize, key_wait: Duration) -> Self {
        let (jobs, queued) = mpsc::channel(QUEUE_ROOM);
        let commits = Arc::new(AtomicU64::new(0));
        let writer = Writer {
            pool,
            batch: batch.max(1),
            key_wait,
            commits: commits.clone(),
        };
        tokio::spawn(writer.run(queued));
        Self { jobs, commits }
    }

    /// Whether the writing task still runs (it ends only with the last handle, or by a
    /// bug): `/healthz` is 503 without it.
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
            Err(mpsc::error::TrySendError::Closed(_)) => return Err(stopped()),
        }
        answer.await.map_err(|_| stopped())?
    }
}

fn stopped() -> StorageError {
    StorageError::Other(anyhow::anyhow!("the database writer has stopped"))
}

/// The writing task's settings.
struct Writer {
    pool: SqlitePool,
    batch: usize,
    key_wait: Duration,
    commits: Arc<AtomicU64>,
}

impl Writer {
    async fn run(self, mut queued: mpsc::Receiver<Queued>) {
        while let Some(first) = queued.recv().await {
            if let Some(writes) = self.write_batch(&mut queued, first).await {
                self.commits.fetch_add(1, Ordering::Relaxed);
                tracing::debug!(writes, "committed a batch of writes");
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

    /// One transaction: `first`, then whatever is queued, up to `batch` jobs; one commit.
    /// Returns how many jobs the commit held (`None`: nothing was committed).
    async fn write_batch(
        &self,
        queued: &mut mpsc::Receiver<Queued>,
        first: Queued,
    ) -> Option<usize> {
        let first = self.next_in_time(queued, Some(first))?;
        let mut connection = match self.pool.acquire().await {
            Ok(connection) => connection,
            Err(error) => {
                refuse_all_queued(queued, first, error);
                return None;
            }
        };
        let mut tx = match connection.begin_with("BEGIN IMMEDIATE").await {
            Ok(tx) => tx,
            Err(error) => {
                refuse_all_queued(queued, first, error);
                return None;
            }
        };
        // Each job's reply with what it did: `Ok(Some(answer))` waits for the commit,
        // `Err` (rolled back to its savepoint) is final.
        let mut done: Vec<Ran> = Vec::new();
        // The first job runs in the transaction itself, with no savepoint: nothing else
        // is in it yet, so when it fails, rolling the whole transaction back undoes just
        // what a savepoint would have, and the jobs behind it start a batch of their own.
        // A lone write costs no savepoint statements.
        let Queued { job, reply, .. } = first;
        match run_guarded(&mut tx, job).await {
            Ok(answer) => done.push((reply, Ok(Some(answer)))),
            Err(failure) => {
                // A rollback that fails leaves the connection's state unknown: it is not
                // used again.
                if tx.rollback().await.is_err() {
                    connection.close_on_drop();
                }
                let _ = reply.send(Err(failure));
                return None;
            }
        }
        let mut next = self.next_after(queued, done.len());
        while let Some(Queued { job, reply, .. }) = next {
            match run_in_savepoint(&mut tx, job).await {
                Ok(outcome) => done.push((reply, outcome.map(Some))),
                Err(failed) => {
                    // A savepoint could not be opened, released or rolled back: the batch
                    // is in an unknown state, so none of it is kept, and the connection
                    // (whose transaction state is unknown too) is not used again.
                    drop(tx);
                    connection.close_on_drop();
                    done.push((reply, Ok(None)));
                    answer_all(done, Some(failed.into_batch_failure()));
                    return None;
                }
            }
            next = self.next_after(queued, done.len());
        }
        let writes = done.len();
        let committed = tx.commit().await;
        if committed.is_err() {
            connection.close_on_drop();
        }
        let ok = committed.is_ok();
        answer_all(done, committed.err().map(BatchFailure::from));
        ok.then_some(writes)
    }
}

/// The write lock (or the connection) could not be had within its bound: `first` and
/// every job queued behind it are answered with the reason now, rather than each waiting
/// its own full bound in turn.
fn refuse_all_queued(queued: &mut mpsc::Receiver<Queued>, first: Queued, error: sqlx::Error) {
    let mut refused = vec![(first.reply, Ok(None))];
    while let Ok(job) = queued.try_recv() {
        refused.push((job.reply, Ok(None)));
    }
    answer_all(refused, Some(error.into()));
}

/// Why a batch was not committed, as every job of it is answered.
struct BatchFailure {
    class: DbFailure,
    message: String,
}

impl From<sqlx::Error> for BatchFailure {
    fn from(error: sqlx::Error) -> Self {
        Self {
            class: DbFailure::of(&error),
            message: error.to_string(),
        }
    }
}

/// A savepoint that could not be opened, released or rolled back, and what the job in it
/// had failed with, if it had.
struct SavepointFailed {
    error: sqlx::Error,
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

impl From<sqlx::Error> for SavepointFailed {
    fn from(error: sqlx::Error) -> Self {
        Self {
            error,
            job_failure: None,
        }
    }
}

/// Runs a job inside a savepoint: released if the job succeeded, rolled back if it failed
/// (or panicked). The outer `Err` is a failure of the savepoint itself.
async fn run_in_savepoint(
    tx: &mut SqliteConnection,
    job: WriteJob,
) -> Result<Result<Answer, StorageError>, SavepointFailed> {
    let mut savepoint = tx.begin().await?;
    match run_guarded(&mut savepoint, job).await {
        Ok(answer) => {
            savepoint.commit().await?;
            Ok(Ok(answer))
        }
        Err(job_failure) => match savepoint.rollback().await {
            Ok(()) => Ok(Err(job_failure)),
            Err(error) => Err(SavepointFailed {
                error,
                job_failure: Some(job_failure),
            }),
        },
    }
}

/// Runs a job on `connection`; a panic anywhere in it is its failure.
async fn run_guarded(
    connection: &mut SqliteConnection,
    job: WriteJob,
) -> Result<Answer, StorageError> {
    // The job is called inside the guarded future, so a panic anywhere in it is caught.
    AssertUnwindSafe(async { job(connection).await })
        .catch_unwind()
        .await
        .unwrap_or_else(|_| {
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
mod tests {
    use std::time::Duration;

    use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions};

    use super::*;
    use crate::records::StoredAnswer;

    async fn pool(dir: &tempfile::TempDir) -> SqlitePool {
        let options = SqliteConnectOptions::new()
            .filename(dir.path().join("writes.db"))
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal);
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options)
            .await
            .unwrap();
        sqlx::query("CREATE TABLE t (n INTEGER NOT NULL)")
            .execute(&pool)
            .await
            .unwrap();
        pool
    }

    /// A job inserting `n`, then failing if `fail`.
    fn insert(n: i64, fail: bool) -> WriteJob {
        Box::new(move |connection| {
            Box::pin(async move {
                sqlx::query("INSERT INTO t (n) VALUES (?)")
                    .bind(n)
                    .execute(&mut *connection)
                    .await?;
                if fail {
                    return Err(StorageError::Refused("refused".into()));
                }
                Ok(Answer {
                    stored: StoredAnswer::from_stored(201, "[]", Vec::new()).unwrap(),
                    replayed: false,
                })
            })
        })
    }

    /// Sends an insert of each `(n, fail)` from a task of its own.
    fn send_all(
        queue: &WriteQueue,
        inserts: impl IntoIterator<Item = (i64, bool)>,
    ) -> Vec<tokio::task::JoinHandle<Result<Answer, StorageError>>> {
        inserts
            .into_iter()
            .map(|(n, fail)| {
                let queue = queue.clone();
                tokio::spawn(async move { queue.write(insert(n, fail)).await })
            })
            .collect()
    }

    async fn rows(pool: &SqlitePool) -> Vec<i64> {
        sqlx::query_scalar("SELECT n FROM t ORDER BY n")
            .fetch_all(pool)
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn writes_queued_together_commit_together_and_a_failing_one_rolls_back_alone() {
        let dir = tempfile::tempdir().unwrap();
        let pool = pool(&dir).await;
        let queue = WriteQueue::start(pool.clone(), 64, Duration::from_secs(5));
        // Hold the write connection so the first job waits and the others queue behind it.
        let held = pool.acquire().await.unwrap();
        let writes = send_all(&queue, [(1, false), (2, true), (3, false), (4, false)]);
        tokio::time::sleep(Duration::from_millis(200)).await;
        // Nothing is answered before the commit.
        assert!(writes.iter().all(|w| !w.is_finished()));
        drop(held);
        let mut outcomes = Vec::new();
        for write in writes {
            outcomes.push(write.await.unwrap().is_ok());
        }
        assert_eq!(outcomes, [true, false, true, true]);
        assert_eq!(rows(&pool).await, [1, 3, 4]);
        assert_eq!(queue.commits(), 1, "the four writes shared one commit");
    }

    #[tokio::test]
    async fn a_first_write_that_fails_is_rolled_back_and_the_writes_behind_it_still_commit() {
        let dir = tempfile::tempdir().unwrap();
        let pool = pool(&dir).await;
        let queue = WriteQueue::start(pool.clone(), 64, Duration::from_secs(5));
        let held = pool.acquire().await.unwrap();
        // The failing write is first in the queue; the others queue behind it.
        let first = send_all(&queue, [(1, true)]);
        tokio::time::sleep(Duration::from_millis(50)).await;
        let rest = send_all(&queue, [(2, false), (3, false)]);
        tokio::time::sleep(Duration::from_millis(100)).await;
        drop(held);
        for write in first {
            assert!(write.await.unwrap().is_err());
        }
        for write in rest {
            write.await.unwrap().unwrap();
        }
        assert_eq!(
            rows(&pool).await,
            [2, 3],
            "nothing of the failed write stays"
        );
        assert_eq!(queue.commits(), 1, "the two behind it shared one commit");
    }

    #[tokio::test]
    async fn a_batch_is_never_larger_than_its_bound() {
        let dir = tempfile::tempdir().unwrap();
        let pool = pool(&dir).await;
        let queue = WriteQueue::start(pool.clone(), 2, Duration::from_secs(5));
        let held = pool.acquire().await.unwrap();
        let writes = send_all(&queue, (1..=5).map(|n| (n, false)));
        tokio::time::sleep(Duration::from_millis(100)).await;
        drop(held);
        for write in writes {
            write.await.unwrap().unwrap();
        }
        assert_eq!(rows(&pool).await, [1, 2, 3, 4, 5]);
        assert_eq!(queue.commits(), 3, "batches of two at most: 2 + 2 + 1");
    }

    #[tokio::test]
    async fn writes_that_waited_past_the_bound_are_answered_busy_without_running() {
        let dir = tempfile::tempdir().unwrap();
        let pool = pool(&dir).await;
        let queue = WriteQueue::start(pool.clone(), 64, Duration::from_millis(100));
        let held = pool.acquire().await.unwrap();
        let writes = send_all(&queue, (1..=4).map(|n| (n, false)));
        tokio::time::sleep(Duration::from_millis(300)).await;
        drop(held);
        let mut busy = 0;
        for write in writes {
            match write.await.unwrap() {
                Ok(_) => {}
                Err(StorageError::Busy) => busy += 1,
                Err(other) => panic!("unexpected {other:?}"),
            }
        }
        // The job already taken when the wait began runs; the three behind it had waited
        // past the bound and never ran.
        assert_eq!(busy, 3);
        assert_eq!(rows(&pool).await.len(), 1);
    }

    #[tokio::test]
    async fn a_write_that_panics_is_rolled_back_and_the_writer_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let pool = pool(&dir).await;
        let queue = WriteQueue::start(pool.clone(), 64, Duration::from_secs(5));
        let panicking: WriteJob = Box::new(|connection| {
            Box::pin(async move {
                sqlx::query("INSERT INTO t (n) VALUES (9)")
                    .execute(&mut *connection)
                    .await?;
                panic!("a bug in a write");
            })
        });
        assert!(queue.write(panicking).await.is_err());
        queue.write(insert(1, false)).await.unwrap();
        assert_eq!(rows(&pool).await, [1]);
    }

    #[tokio::test]
    async fn a_write_that_meets_a_full_database_is_answered_storage_full_and_nothing_of_it_stays() {
        let dir = tempfile::tempdir().unwrap();
        let pool = pool(&dir).await;
        insert_directly(&pool, 1).await;
        // The pool's one connection may not grow the file past its size now.
        sqlx::query("PRAGMA max_page_count = 1")
            .execute(&pool)
            .await
            .unwrap();
        let queue = WriteQueue::start(pool.clone(), 64, Duration::from_secs(5));
        let big: WriteJob = Box::new(|connection| {
            Box::pin(async move {
                sqlx::query("INSERT INTO t (n) VALUES (zeroblob(100000))")
                    .execute(&mut *connection)
                    .await?;
                Ok(answer())
            })
        });
        assert!(matches!(queue.write(big).await, Err(StorageError::Full)));
        assert_eq!(rows(&pool).await, [1]);
        // Room again (a new limit, or a new connection after the failed batch).
        sqlx::query("PRAGMA max_page_count = 100000")
            .execute(&pool)
            .await
            .unwrap();
        queue.write(insert(2, false)).await.unwrap();
        assert_eq!(rows(&pool).await, [1, 2]);
    }

    fn answer() -> Answer {
        Answer {
            stored: StoredAnswer::from_stored(201, "[]", Vec::new()).unwrap(),
            replayed: false,
        }
    }

    async fn insert_directly(pool: &SqlitePool, n: i64) {
        sqlx::query("INSERT INTO t (n) VALUES (?)")
            .bind(n)
            .execute(pool)
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn a_lone_write_is_committed_without_waiting_for_company() {
        let dir = tempfile::tempdir().unwrap();
        let pool = pool(&dir).await;
        let queue = WriteQueue::start(pool.clone(), 64, Duration::from_secs(5));
        queue.write(insert(1, false)).await.unwrap();
        // Answered means committed: another connection sees it.
        let other = SqlitePoolOptions::new()
            .connect_with(SqliteConnectOptions::new().filename(dir.path().join("writes.db")))
            .await
            .unwrap();
        assert_eq!(rows(&other).await, [1]);
    }
}
