//! The PostgreSQL implementation, for several server processes (replicas) on one
//! database. READ COMMITTED throughout; what makes it exact:
//!
//! - A write claims its key by inserting the key's row first thing in its transaction.
//!   A second request with the same key — in this process or another replica — blocks
//!   on that uncommitted row; when the first commits (its answer written into the row)
//!   the second finds the row and replays it; when the first rolls back, the second
//!   claims the key itself. The wait is bounded by `lock_timeout` (`key_wait`): past it
//!   the answer is 409 `idempotency-key-in-use`.
//! - A create under a new key is made in one statement instead, committed on its own
//!   (`lone_insert`): every part of it or none, and the usual transaction whenever the key
//!   was used before. Its wait past `key_wait` is 503, whatever it waited for.
//! - A write reads the note it changes with `FOR UPDATE`, so two replicas editing one
//!   note take turns, and the second sees the first one's version (and merges with it,
//!   or keeps a conflict copy). Waiting longer than `key_wait` for a row is 503.
//! - A transaction PostgreSQL aborts for a deadlock or a serialization failure is run
//!   again by the write pipeline (`idempotency::execute`), never reported as lost.
//! - Background sweeps take rows with `FOR UPDATE SKIP LOCKED` in small batches: two
//!   replicas sweeping at once share the work, and no sweep waits for a save.

mod accounts;
mod announcer;
mod api_tokens;
mod changes;
mod file_refs;
mod files;
mod keys;
mod limits;
pub mod listen;
mod lone_insert;
pub(super) mod note_writes;
mod notes;
mod open;
pub mod search;
mod sessions;
mod sweeps;
mod tags;

use std::sync::Arc;

use sqlx::postgres::PgPool;
use tokio::sync::watch;

use super::feed::FeedSignal;

/// The notes, keys and accounts of one PostgreSQL database, shared with other replicas.
#[derive(Clone)]
pub struct PgStore {
    /// Connections for writes (and sweeps). Each waits for a lock another transaction
    /// holds for at most `key_wait` (its `lock_timeout`): past it the write is answered 503
    /// (409 when the lock was the claim on its key), never left waiting.
    pub(super) pool: PgPool,
    /// Connections for reads: a write waiting for a lock holds its connection, and reads
    /// (pages, lists, replays, `/healthz`) must never wait for one.
    pub(super) reader: PgPool,
    /// Raised by this process's listener when any replica's write reaches a person's feed.
    pub(super) feed: FeedSignal,
    /// Stops the listener (at `close`, or when the last clone of the store goes).
    stop_listening: Arc<watch::Sender<bool>>,
    /// Tells every replica whose feed moved, after the write's commit.
    announcer: announcer::Announcer,
}

/// Whether `text` could never be in the database: PostgreSQL text cannot hold NUL, and a
/// query with it fails instead of finding nothing (SQLite simply finds nothing). Ids come
/// from the request path, so `/api/notes/%00` is an id like any other — and not found.
pub(super) fn unstorable(text: &str) -> bool {
    text.contains('\0')
}
