//! Where notes and idempotency answers are kept: one interface, one implementation per
//! database. Handlers see only [`Store`]; the SQL of each database lives in its own
//! module (`sqlite`), and the write logic that is the same for every database
//! (`notes::writes`, `idempotency::execute`) is written once against the traits below.

pub mod sqlite;

use std::future::Future;

use app::api::{Note, NotesPage};

use crate::config::{Config, DatabaseUrl};
use crate::error::ApiError;
use crate::idempotency::{
    ClaimTicket, Fingerprint, IdempotencyKey, NextAction, SavedAnswer, StoredAnswer,
};
use crate::notes::cursor::Cursor;

/// The database the server runs on.
#[derive(Clone)]
pub enum Store {
    Sqlite(sqlite::SqliteStore),
}

impl Store {
    /// Opens the database named by the configuration and migrates it.
    pub async fn open(config: &Config) -> anyhow::Result<Self> {
        match &config.database {
            DatabaseUrl::Sqlite(url) => Ok(Store::Sqlite(
                sqlite::SqliteStore::open(url, config.key_wait).await?,
            )),
        }
    }

    /// Whether the database answers a query.
    pub async fn ping(&self) -> Result<(), ApiError> {
        match self {
            Store::Sqlite(db) => db.ping().await,
        }
    }

    /// A page of notes, newest first.
    pub async fn list_notes(
        &self,
        scope: &str,
        limit: u32,
        cursor: Option<&Cursor>,
    ) -> Result<NotesPage, ApiError> {
        match self {
            Store::Sqlite(db) => db.list_notes(scope, limit, cursor).await,
        }
    }

    /// One note.
    pub async fn get_note(&self, scope: &str, id: &str) -> Result<Option<Note>, ApiError> {
        match self {
            Store::Sqlite(db) => db.get_note(scope, id).await,
        }
    }

    /// Deletes expired idempotency rows; returns how many went.
    pub async fn sweep_expired(&self, now: &str) -> Result<u64, ApiError> {
        match self {
            Store::Sqlite(db) => db.sweep_expired(now).await,
        }
    }

    /// Closes every connection (at shutdown).
    pub async fn close(&self) {
        match self {
            Store::Sqlite(db) => db.close().await,
        }
    }
}

/// The idempotency side of a database: read a committed answer, claim a key inside a
/// write transaction, store the answer and commit.
pub trait Backend: Send + Sync {
    /// A write transaction holding a claimed key.
    type Tx: NoteWrites + Send;

    /// The committed answer for `key`, read without taking the write lock.
    fn find_answer(
        &self,
        scope: &str,
        key: &IdempotencyKey,
    ) -> impl Future<Output = Result<Option<SavedAnswer>, ApiError>> + Send;

    /// Begins a write transaction and claims the key in it.
    fn begin(
        &self,
        ticket: &ClaimTicket,
    ) -> impl Future<Output = Result<NextAction<Self::Tx>, ApiError>> + Send;

    /// Stores `answer` with the claim and commits everything the transaction wrote.
    fn finish(
        &self,
        tx: Self::Tx,
        ticket: &ClaimTicket,
        answer: &StoredAnswer,
    ) -> impl Future<Output = Result<(), ApiError>> + Send;
}

/// What the write operations need from the database, inside the claimed transaction.
pub trait NoteWrites {
    /// Inserts `note`, which carries the key that created it. Returns false, writing
    /// nothing, if a note with this key already exists (a retry after its idempotency row
    /// expired).
    fn insert_note(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
        note: &Note,
    ) -> impl Future<Output = Result<bool, ApiError>> + Send;

    /// The note a key created, with the fingerprint of the request that created it.
    fn note_created_by(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
    ) -> impl Future<Output = Result<Option<(Note, Fingerprint)>, ApiError>> + Send;
}
