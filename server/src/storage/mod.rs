//! Where notes and idempotency answers are kept: one interface, one implementation per
//! database. Handlers see only [`Store`]; the SQL of each database lives in its own
//! module (`sqlite`), and the write logic that is the same for every database
//! (`notes::writes`, `idempotency::execute`) is written once against the traits below.

pub mod sqlite;

use std::future::Future;

use app::api::{Note, NotesPage, Revision, RevisionKind};

use crate::config::{Config, DatabaseUrl};
use crate::error::ApiError;
use crate::idempotency::{
    ClaimTicket, Fingerprint, IdempotencyKey, NextAction, SavedAnswer, StoredAnswer,
};
use crate::notes::cursor::Cursor;
use crate::search::query::SearchQuery;

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

    /// A page of the notes in the trash, latest moved first.
    pub async fn list_trash(
        &self,
        scope: &str,
        limit: u32,
        cursor: Option<&Cursor>,
    ) -> Result<NotesPage, ApiError> {
        match self {
            Store::Sqlite(db) => db.list_trash(scope, limit, cursor).await,
        }
    }

    /// Every revision of a note, oldest first; `None` if there is no such note.
    pub async fn revisions(
        &self,
        scope: &str,
        id: &str,
    ) -> Result<Option<Vec<Revision>>, ApiError> {
        match self {
            Store::Sqlite(db) => db.revisions(scope, id).await,
        }
    }

    /// Notes matching `query` (not in the trash), best first: `limit` from `offset`.
    pub async fn search(
        &self,
        scope: &str,
        query: &SearchQuery,
        limit: u32,
        offset: u32,
    ) -> Result<Vec<Note>, ApiError> {
        match self {
            Store::Sqlite(db) => db.search(scope, query, limit, offset).await,
        }
    }

    /// Deletes for good the notes that went to the trash before `cutoff`; returns how
    /// many went.
    pub async fn empty_trash_before(&self, cutoff: &str, now: &str) -> Result<u64, ApiError> {
        match self {
            Store::Sqlite(db) => db.empty_trash_before(cutoff, now).await,
        }
    }

    /// A page of notes not in the trash, newest first.
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

/// A write done earlier under a key, found through the key the write left on what it
/// made (after the key's idempotency row expired).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PastWrite {
    /// A revision of `note_id`: an edit, a merge, a move to or from the trash — or, with
    /// `RevisionKind::Create`, the note the key created (a create, or an edit's conflict
    /// copy).
    Revision { note_id: String, kind: RevisionKind },
    /// A delete for good of `note_id`.
    Purge { note_id: String },
}

/// A revision about to be written.
pub struct NewRevision<'a> {
    pub version: i64,
    pub kind: RevisionKind,
    pub key: &'a IdempotencyKey,
    pub fingerprint: &'a Fingerprint,
}

/// What the write operations need from the database, inside the claimed transaction.
pub trait NoteWrites {
    /// Inserts `note`, which carries the key that created it, with its first revision.
    /// Returns false, writing nothing, if a note with this key already exists (a retry
    /// after its idempotency row expired).
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

    /// What an earlier write under `key` did, with the fingerprint of its request.
    fn past_write(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
    ) -> impl Future<Output = Result<Option<(PastWrite, Fingerprint)>, ApiError>> + Send;

    /// The note as it is now (in the trash or not), inside the transaction.
    fn note(
        &mut self,
        scope: &str,
        id: &str,
    ) -> impl Future<Output = Result<Option<Note>, ApiError>> + Send;

    /// The note's revision at `version`.
    fn revision_at(
        &mut self,
        scope: &str,
        id: &str,
        version: i64,
    ) -> impl Future<Output = Result<Option<Revision>, ApiError>> + Send;

    /// Writes the note's new state (title, body, version, `updated_at`, `trashed_at`) and
    /// the revision that records it.
    fn save_note(
        &mut self,
        scope: &str,
        note: &Note,
        revision: NewRevision<'_>,
    ) -> impl Future<Output = Result<(), ApiError>> + Send;

    /// Whether `id` was deleted for good.
    fn is_purged(
        &mut self,
        scope: &str,
        id: &str,
    ) -> impl Future<Output = Result<bool, ApiError>> + Send;

    /// Deletes the note and its revisions for good, leaving a tombstone with the key.
    fn purge(
        &mut self,
        scope: &str,
        id: &str,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
        at: &str,
    ) -> impl Future<Output = Result<(), ApiError>> + Send;
}
