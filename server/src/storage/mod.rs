//! Where notes and idempotency answers are kept: one interface, one implementation per
//! database. Handlers see only [`Store`] and its groups by concern (`store`); the SQL of
//! each database lives in its own module (`sqlite`, `postgres`, a file per concern in
//! each), and the write logic that is the same for every database (the operations in
//! `notes`, run by `idempotency::execute`) is written once against the traits below.
//!
//! Storage stands below the domain: it reads and writes the values of `records` and the
//! wire types of `app::api`, answers with its own [`StorageError`], and imports nothing
//! of `accounts`, `notes`, `search` or `idempotency`.

pub mod error;
pub mod feed;
pub mod files;
pub mod history;
pub mod postgres;
mod rows;
pub mod sqlite;
pub mod store;
pub mod transfer;

use std::future::Future;
use std::sync::Arc;

use app::api::{Note, Revision, RevisionKind};

use crate::records::{
    Answer, Applied, ClaimTicket, Fingerprint, IdempotencyKey, SavedAnswer, StoredAnswer,
};

pub use error::{DbFailure, StorageError, is_busy};
pub use store::Store;

/// The idempotency side of a database: read a committed answer; run a write under its
/// claimed key.
pub trait Backend: Send + Sync {
    /// The committed answer for `key`, read without taking the write lock.
    fn find_answer(
        &self,
        scope: &str,
        key: &IdempotencyKey,
    ) -> impl Future<Output = Result<Option<SavedAnswer>, StorageError>> + Send;

    /// In one write transaction: claims the ticket's key (replaying what it holds if
    /// another request finished first), runs `work`, stores its answer with the key
    /// and commits. Answers only once the write is durable; a failure leaves nothing.
    /// (A backend may make a [`Work::lone_insert`] in one statement instead, with the
    /// same all-or-nothing.)
    fn write<W: Work>(
        &self,
        ticket: ClaimTicket,
        work: Arc<W>,
    ) -> impl Future<Output = Result<Answer, StorageError>> + Send;
}

/// What runs inside a claimed write transaction: the write, and the answer to keep with
/// its key.
pub trait Work: Send + Sync + 'static {
    /// The fingerprint of the request the key is used for.
    fn fingerprint(&self) -> Fingerprint;

    /// Writes through `tx` and returns the answer to store with the key.
    fn run<T: NoteWrites + Send>(
        &self,
        tx: &mut T,
        scope: &str,
        key: &IdempotencyKey,
    ) -> impl Future<Output = Result<Applied, StorageError>> + Send;

    /// What the write is when its key has never been used: one new note and nothing else,
    /// with the answer to keep — if it is that kind of write. A backend may make it
    /// without a transaction around it (PostgreSQL does, in one statement), and runs
    /// [`Work::run`] instead whenever the key turns out to have been used.
    fn lone_insert(&self) -> Option<LoneInsert> {
        None
    }
}

/// A write that is one new note when its key is new ([`Work::lone_insert`]).
pub struct LoneInsert {
    /// The note, carrying the key that makes it.
    pub note: Note,
    /// The answer to keep with the key once the note is made.
    pub answer: StoredAnswer,
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
    /// A write of kind `kind` to `note_id`, which was deleted for good since: the purge
    /// kept the key (for `ONCENOTE_TOMBSTONE_DAYS`), so a late retry is told the note is
    /// gone instead of making it again.
    Deleted { note_id: String, kind: RevisionKind },
    /// A tag renamed in every note that had it (its record outlives the key's row).
    TagRename,
}

/// What a tag rename would rewrite, read before its write (`Tags::tagged_for_rename`).
#[derive(Debug)]
pub enum TaggedRead {
    /// The notes tagged, oldest first.
    Notes(Vec<Note>),
    /// More text than the rename may rewrite: how many notes, and their characters.
    TooLarge { notes: usize, chars: u64 },
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
    ) -> impl Future<Output = Result<bool, StorageError>> + Send;

    /// The note a key created, with the fingerprint of the request that created it.
    fn note_created_by(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
    ) -> impl Future<Output = Result<Option<(Note, Fingerprint)>, StorageError>> + Send;

    /// What an earlier write under `key` did, with the fingerprint of its request.
    fn past_write(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
    ) -> impl Future<Output = Result<Option<(PastWrite, Fingerprint)>, StorageError>> + Send;

    /// What an earlier use of `key` wrote, if any, for a retry that arrives after the
    /// key's idempotency row expired (the note or revision it left still carries the key:
    /// PROTOCOL.md §Server 6). Every write asks this first. A key used for another request
    /// is refused ([`StorageError::KeyReused`]), as the key's own row refuses it.
    fn earlier_write(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
    ) -> impl Future<Output = Result<Option<PastWrite>, StorageError>> + Send
    where
        Self: Send,
    {
        async move {
            match self.past_write(scope, key).await? {
                None => Ok(None),
                Some((past, by)) if by == *fingerprint => Ok(Some(past)),
                Some(_) => Err(StorageError::KeyReused),
            }
        }
    }

    /// The note as it is now (in the trash or not), inside the transaction.
    fn note(
        &mut self,
        scope: &str,
        id: &str,
    ) -> impl Future<Output = Result<Option<Note>, StorageError>> + Send;

    /// The note's revision at `version`.
    fn revision_at(
        &mut self,
        scope: &str,
        id: &str,
        version: i64,
    ) -> impl Future<Output = Result<Option<Revision>, StorageError>> + Send;

    /// Writes the note's new state (title, body, version, `updated_at`, `trashed_at`) and
    /// the revision that records it.
    fn save_note(
        &mut self,
        scope: &str,
        note: &Note,
        revision: NewRevision<'_>,
    ) -> impl Future<Output = Result<(), StorageError>> + Send;

    /// Whether `id` was deleted for good.
    fn is_purged(
        &mut self,
        scope: &str,
        id: &str,
    ) -> impl Future<Output = Result<bool, StorageError>> + Send;

    /// Deletes the note and its revisions for good, leaving a tombstone with the key.
    fn purge(
        &mut self,
        scope: &str,
        id: &str,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
        at: &str,
    ) -> impl Future<Output = Result<(), StorageError>> + Send;

    /// The id and version of every note (in the trash or not) tagged `tag` or a tag
    /// nested under it, oldest first, held for this transaction: what a rename prepared
    /// outside it (`Tags::tagged_for_rename`) is checked against.
    fn tagged_versions(
        &mut self,
        scope: &str,
        tag: &str,
    ) -> impl Future<Output = Result<Vec<(String, i64)>, StorageError>> + Send;

    /// What a rename under `key` did (how many notes it changed), with its request's
    /// fingerprint: kept past the key's idempotency row, for a late retry.
    fn past_rename(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
    ) -> impl Future<Output = Result<Option<(i64, Fingerprint)>, StorageError>> + Send;

    /// Keeps what a rename under `key` did.
    fn record_rename(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
        renamed: i64,
        at: &str,
    ) -> impl Future<Output = Result<(), StorageError>> + Send;
}
