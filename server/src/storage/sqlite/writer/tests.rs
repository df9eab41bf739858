use std::time::Duration;

use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions};

use super::*;
use crate::records::StoredAnswer;

/// How the writer's connection is opened in these tests.
fn options(dir: &tempfile::TempDir) -> SqliteConnectOptions {
    SqliteConnectOptions::new()
        .filename(dir.path().join("writes.db"))
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
}

/// The write pool (the writer's turn, and the store's other writes), with the table `t`
/// made.
async fn pool(dir: &tempfile::TempDir) -> SqlitePool {
    pool_with(options(dir), Duration::from_secs(30)).await
}

/// [`pool`] on connections opened with `options`, waited for `acquire` at most.
async fn pool_with(options: SqliteConnectOptions, acquire: Duration) -> SqlitePool {
    let pool = SqlitePoolOptions::new()
        .max_connections(1)
        .test_before_acquire(false)
        .acquire_timeout(acquire)
        .connect_with(options)
        .await
        .unwrap();
    sqlx::query("CREATE TABLE t (n INTEGER NOT NULL)")
        .execute(&pool)
        .await
        .unwrap();
    pool
}

const INSERT: &str = "INSERT INTO t (n) VALUES (?)";

/// A job inserting `n` (its statement cached, as the store's writes are), then failing
/// if `fail`.
fn insert(n: i64, fail: bool) -> WriteJob {
    Box::new(move |connection| {
        connection.prepare_cached(INSERT)?.execute([n])?;
        if fail {
            return Err(StorageError::Refused("refused".into()));
        }
        Ok(answer())
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
    let queue = WriteQueue::start(options(&dir), pool.clone(), 64, Duration::from_secs(5));
    // Hold the process's turn to write (the write pool's connection) so the first job
    // waits and the others queue behind it.
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
    let queue = WriteQueue::start(options(&dir), pool.clone(), 64, Duration::from_secs(5));
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
    let queue = WriteQueue::start(options(&dir), pool.clone(), 2, Duration::from_secs(5));
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
    let queue = WriteQueue::start(options(&dir), pool.clone(), 64, Duration::from_millis(100));
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
async fn writes_whose_turn_is_not_had_within_the_bound_are_answered_busy_and_none_runs() {
    let dir = tempfile::tempdir().unwrap();
    // As the store opens it: the pool's connection waited for `key_wait` at most.
    let key_wait = Duration::from_millis(100);
    let pool = pool_with(options(&dir), key_wait).await;
    let queue = WriteQueue::start(options(&dir), pool.clone(), 64, key_wait);
    let held = pool.acquire().await.unwrap();
    let writes = send_all(&queue, (1..=4).map(|n| (n, false)));
    tokio::time::sleep(Duration::from_millis(300)).await;
    for write in writes {
        match write.await.unwrap() {
            Err(StorageError::Busy) => {}
            other => panic!("expected 503 database-busy, got {other:?}"),
        }
    }
    drop(held);
    assert_eq!(rows(&pool).await, Vec::<i64>::new());
    // The turn free again: the writer goes on.
    queue.write(insert(5, false)).await.unwrap();
    assert_eq!(rows(&pool).await, [5]);
}

#[tokio::test]
async fn a_write_that_panics_is_rolled_back_and_the_writer_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let pool = pool(&dir).await;
    let queue = WriteQueue::start(options(&dir), pool.clone(), 64, Duration::from_secs(5));
    let panicking: WriteJob = Box::new(|connection| {
        connection.execute("INSERT INTO t (n) VALUES (9)", [])?;
        panic!("a bug in a write");
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
    // The writer's connection may not grow the file past its size now.
    let queue = WriteQueue::start(
        options(&dir).pragma("max_page_count", "1"),
        pool.clone(),
        64,
        Duration::from_secs(5),
    );
    let big: WriteJob = Box::new(|connection| {
        connection.execute("INSERT INTO t (n) VALUES (zeroblob(100000))", [])?;
        Ok(answer())
    });
    assert!(matches!(queue.write(big).await, Err(StorageError::Full)));
    assert_eq!(rows(&pool).await, [1]);
    // Room again: the writer goes on.
    let grow: WriteJob = Box::new(|connection| {
        connection.pragma_update(None, "max_page_count", 100_000)?;
        Ok(answer())
    });
    queue.write(grow).await.unwrap();
    queue.write(insert(2, false)).await.unwrap();
    assert_eq!(rows(&pool).await, [1, 2]);
}

/// The SQL of every statement prepared on `connection` now.
fn prepared_statements(connection: &Connection) -> Vec<String> {
    let mut found = Vec::new();
    // SAFETY: read-only walk of the connection's own list of statements, on the thread
    // that holds the connection, with no statement finalized meanwhile.
    unsafe {
        let handle = connection.handle();
        let mut statement = rusqlite::ffi::sqlite3_next_stmt(handle, std::ptr::null_mut());
        while !statement.is_null() {
            let sql = rusqlite::ffi::sqlite3_sql(statement);
            if !sql.is_null() {
                found.push(std::ffi::CStr::from_ptr(sql).to_string_lossy().into_owned());
            }
            statement = rusqlite::ffi::sqlite3_next_stmt(handle, statement);
        }
    }
    found
}

#[tokio::test]
async fn a_write_finds_the_statements_of_the_batches_before_it_still_prepared() {
    let dir = tempfile::tempdir().unwrap();
    let pool = pool(&dir).await;
    let queue = WriteQueue::start(options(&dir), pool.clone(), 64, Duration::from_secs(5));
    queue.write(insert(1, false)).await.unwrap();
    // Another batch, after the first committed: its statements were prepared by the first.
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let look: WriteJob = Box::new({
        let seen = seen.clone();
        move |connection| {
            *seen.lock().unwrap() = prepared_statements(connection);
            Ok(answer())
        }
    });
    queue.write(look).await.unwrap();
    let seen = seen.lock().unwrap().clone();
    assert!(
        seen.iter().any(|sql| sql == INSERT),
        "the insert prepared by the batch before is still prepared: {seen:?}"
    );
    assert!(seen.iter().any(|sql| sql == "BEGIN IMMEDIATE"), "{seen:?}");
    assert_eq!(queue.commits(), 2);
    assert_eq!(rows(&pool).await, [1]);
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
    let queue = WriteQueue::start(options(&dir), pool.clone(), 64, Duration::from_secs(5));
    queue.write(insert(1, false)).await.unwrap();
    // Answered means committed: another connection sees it.
    let other = SqlitePoolOptions::new()
        .connect_with(SqliteConnectOptions::new().filename(dir.path().join("writes.db")))
        .await
        .unwrap();
    assert_eq!(rows(&other).await, [1]);
}

#[tokio::test]
async fn another_write_on_the_pool_gets_its_turn_between_batches_of_a_steady_stream_of_writes() {
    let dir = tempfile::tempdir().unwrap();
    // The other write gives up after 200 ms of waiting for SQLite's write lock: racing
    // for it against a writer that is nearly always in a batch, it would lose.
    let pool = pool_with(
        options(&dir).busy_timeout(Duration::from_millis(200)),
        Duration::from_secs(30),
    )
    .await;
    let queue = WriteQueue::start(options(&dir), pool.clone(), 1, Duration::from_secs(5));
    // Four clients writing back to back, each write holding its batch open for 5 ms.
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let streams: Vec<_> = (0..4)
        .map(|client| {
            let (queue, stop) = (queue.clone(), stop.clone());
            tokio::spawn(async move {
                let mut n = client * 1_000_000;
                while !stop.load(Ordering::Relaxed) {
                    n += 1;
                    let slow: WriteJob = Box::new(move |connection| {
                        connection.prepare_cached(INSERT)?.execute([n])?;
                        std::thread::sleep(Duration::from_millis(5));
                        Ok(answer())
                    });
                    queue.write(slow).await.unwrap();
                }
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let before = queue.commits();
    for n in 1..=5 {
        sqlx::query("INSERT INTO t (n) VALUES (?)")
            .bind(-n)
            .execute(&pool)
            .await
            .expect("the pool's write waits for its turn, then finds the lock free");
    }
    let after = queue.commits();
    stop.store(true, Ordering::Relaxed);
    for stream in streams {
        stream.await.unwrap();
    }
    assert!(after > before, "the stream went on meanwhile");
    let others: i64 = sqlx::query_scalar("SELECT count(*) FROM t WHERE n < 0")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(others, 5);
}

#[tokio::test]
async fn once_closed_every_write_is_kept_and_later_writes_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let pool = pool(&dir).await;
    let queue = WriteQueue::start(options(&dir), pool.clone(), 64, Duration::from_secs(5));
    queue.write(insert(1, false)).await.unwrap();
    super::super::open::close_pool(&pool).await;
    queue.close().await;
    assert!(!queue.is_running());
    // (That the file alone holds them after the store's close: `SqliteStore::close`.)
    let reopened = SqlitePoolOptions::new()
        .connect_with(options(&dir))
        .await
        .unwrap();
    assert_eq!(rows(&reopened).await, [1]);
    assert!(queue.write(insert(2, false)).await.is_err());
}

#[tokio::test]
async fn closing_ends_the_writer_even_when_every_write_it_is_sent_is_late() {
    let dir = tempfile::tempdir().unwrap();
    let pool = pool(&dir).await;
    // No wait allowed: every job, the wake of `close` too, is late when taken.
    let queue = WriteQueue::start(options(&dir), pool.clone(), 64, Duration::ZERO);
    pool.close().await;
    let closed = tokio::time::timeout(Duration::from_secs(10), queue.close()).await;
    assert!(closed.is_ok(), "the writing thread ended");
    assert!(!queue.is_running());
}
