//! A write connection's own SQLite handle, taken from sqlx for a stretch of synchronous
//! work on the calling thread: lent from the write pool ([`lend`], the trash sweep), or
//! held for a connection's whole life ([`hold`], the group-commit writer).
//!
//! sqlx runs each SQLite statement on the connection's worker thread: every statement is
//! a trip there and back (two thread wake-ups; about 100 µs of CPU each on a small VM),
//! and a write of five statements made five. Here the connection is taken from the pool,
//! sqlx's worker is told to let go of the handle (`lock_handle`: one trip), and the work
//! runs its statements through rusqlite on this thread, each prepared once per lending.
//! Then the statements are finalized and the handle goes back to sqlx — before the
//! connection can return to the pool (where sqlx checks it: one more trip), or be closed
//! (sqlx closes with `sqlite3_close`, which refuses while statements are left). So a
//! lent connection prepares its statements anew at every lending; a held one, once.
//!
//! The work is given the connection only as `&Connection` (through [`Lent`]'s `Deref`):
//! with a `&mut` it could swap another connection in, and the borrowed handle would
//! outlive its lending.

use std::ops::Deref;
use std::panic::AssertUnwindSafe;

use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};
use sqlx::{ConnectOptions, Connection, SqlitePool};

/// The lent handle, as a rusqlite connection (which does not own it: dropping it
/// finalizes its prepared statements and leaves the handle open).
pub struct Lent {
    connection: rusqlite::Connection,
    discard: bool,
}

impl Lent {
    /// The connection's state is unknown (a rollback or commit that failed): it is closed
    /// once given back, never used again.
    pub fn discard(&mut self) {
        self.discard = true;
    }

    /// Whether [`Lent::discard`] was called.
    pub fn is_discarded(&self) -> bool {
        self.discard
    }
}

impl Deref for Lent {
    type Target = rusqlite::Connection;

    fn deref(&self) -> &rusqlite::Connection {
        &self.connection
    }
}

/// Prepared statements kept per lending (per holding: for the connection's life).
const STATEMENTS_KEPT: usize = 64;

/// Runs `work` on the handle of a connection of `pool`, blocking this thread (which must
/// not be one of the runtime's workers: a thread of its own, or `spawn_blocking`'s).
/// A connection left inside a transaction is closed rather than reused.
pub fn lend<T>(
    runtime: &tokio::runtime::Handle,
    pool: &SqlitePool,
    work: impl FnOnce(&mut Lent) -> T,
) -> Result<T, sqlx::Error> {
    let mut pooled = runtime.block_on(pool.acquire())?;
    let (done, discard) = on_handle(runtime, &mut pooled, work)?;
    if discard {
        pooled.close_on_drop();
    }
    drop(pooled);
    Ok(done.unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
}

/// Opens a connection of its own with `options` and runs `work` on its handle, blocking
/// this thread (as [`lend`]). The handle is `work`'s for the connection's whole life, so a
/// statement is prepared once however many transactions `work` runs: the group-commit
/// writer's connection. The connection is closed when `work` returns.
pub fn hold<T>(
    runtime: &tokio::runtime::Handle,
    options: &SqliteConnectOptions,
    work: impl FnOnce(&mut Lent) -> T,
) -> Result<T, sqlx::Error> {
    let mut connection = runtime.block_on(options.connect())?;
    let (done, _) = on_handle(runtime, &mut connection, work)?;
    if let Err(error) = runtime.block_on(connection.close()) {
        tracing::warn!(%error, "the write connection did not close cleanly");
    }
    Ok(done.unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
}

/// Runs `work` on `connection`'s handle, taken from sqlx's worker meanwhile: what it
/// returned (or how it panicked), and whether the connection's state is unknown.
fn on_handle<T>(
    runtime: &tokio::runtime::Handle,
    connection: &mut SqliteConnection,
    work: impl FnOnce(&mut Lent) -> T,
) -> Result<(std::thread::Result<T>, bool), sqlx::Error> {
    let mut locked = runtime.block_on(connection.lock_handle())?;
    // SAFETY: the handle is sqlx's, open for as long as `locked` lives, and used by
    // nobody else meanwhile: sqlx's worker waits for the lock `locked` holds. The
    // rusqlite connection does not own it (it never closes it) and is dropped — its
    // statements finalized — before `locked` gives the handle back.
    let connection = unsafe { rusqlite::Connection::from_handle(locked.as_raw_handle().as_ptr()) }
        .map_err(|error| sqlx::Error::Protocol(error.to_string()))?;
    // Room for every statement of a batch of mixed writes (an edit with tags and
    // files runs about fourteen), so none is prepared twice.
    connection.set_prepared_statement_cache_capacity(STATEMENTS_KEPT);
    let mut lent = Lent {
        connection,
        discard: false,
    };
    // A panic in the work leaves the connection's state unknown: it is closed, and the
    // panic goes on once the handle is given back.
    let done = std::panic::catch_unwind(AssertUnwindSafe(|| work(&mut lent)));
    let discard = done.is_err() || lent.discard || !lent.is_autocommit();
    drop(lent);
    Ok((done, discard))
}
