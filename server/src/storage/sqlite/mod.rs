//! The SQLite implementation: one file, WAL, `synchronous=FULL`.
//!
//! - Two pools and the writer's connection. Idempotent writes are jobs for one writing
//!   thread ([`writer`]) on a connection of its own, which commits the writes that arrive
//!   together in one transaction (each in its own savepoint): one fsync for a batch, every
//!   answer sent after its batch is on disk. The other writes (accounts, sessions, files,
//!   sweeps) go through a pool of exactly one connection, so such a write waiting for its
//!   turn waits for that connection and holds nothing else; reads (pages, lists, replays,
//!   `/healthz`) use a pool of their own and, with WAL, never wait for a writer.
//! - `synchronous=FULL` fsyncs the WAL at every commit: an answer is only sent for a write
//!   that is on disk and survives a crash or a power loss.
//! - A write transaction is `BEGIN IMMEDIATE`: it holds SQLite's write lock from its
//!   first statement, so reading the key's row and then writing it cannot race another
//!   writer (another process on the same file, a backup). The lock is waited for
//!   `key_wait` at most; past that the answer is 503 `database-busy`.

mod accounts;
mod api_tokens;
pub mod backup;
mod changes;
mod file_refs;
mod files;
mod handle;
mod keys;
mod limits;
mod note_writes;
mod notes;
mod open;
#[cfg(test)]
mod query_plans;
mod rank;
pub mod search;
mod sessions;
mod sweeps;
mod tag_range;
mod tags;
#[cfg(test)]
mod upgrades;
mod writer;

use sqlx::SqlitePool;

use super::feed::FeedSignal;

/// The notes, keys and accounts of one SQLite file, and the task that writes them.
#[derive(Clone)]
pub struct SqliteStore {
    pub(super) writer: SqlitePool,
    pub(super) reader: SqlitePool,
    /// Idempotent writes, committed in groups on the writing thread's own connection.
    writes: writer::WriteQueue,
    /// Raised after a write commits, for the live streams of its person.
    pub(super) feed: FeedSignal,
    /// How the file is opened: at the close, to fold the WAL into it.
    file: std::sync::Arc<sqlx::sqlite::SqliteConnectOptions>,
}
