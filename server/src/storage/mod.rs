//! Where notes and idempotency answers are kept: one interface, one implementation per
//! database. Handlers see only [`Store`]; the SQL of each database lives in its own
//! module (`sqlite`, `postgres`), and the write logic that is the same for every database
//! (`notes::writes`, `idempotency::execute`) is written once against the traits below.

pub mod postgres;
mod rows;
pub mod sqlite;
pub mod transfer;

use std::future::Future;
use std::sync::Arc;

use app::api::{Note, NotesPage, Revision, RevisionKind};

use crate::accounts::{NewUser, User, Viewer};
use crate::config::{Config, DatabaseUrl};
use crate::error::ApiError;
use crate::idempotency::{Answer, Applied, ClaimTicket, Fingerprint, IdempotencyKey, SavedAnswer};
use crate::notes::cursor::Cursor;
use crate::text::query::SearchQuery;

/// The database the server runs on.
#[derive(Clone)]
pub enum Store {
    Sqlite(sqlite::SqliteStore),
    Postgres(postgres::PgStore),
}

impl Store {
    /// Opens the database named by the configuration and migrates it.
    pub async fn open(config: &Config) -> anyhow::Result<Self> {
        match &config.database {
            DatabaseUrl::Sqlite(url) => Ok(Store::Sqlite(
                sqlite::SqliteStore::open(
                    url,
                    config.key_wait,
                    config.write_batch,
                    config.sqlite_max_pages,
                )
                .await?,
            )),
            DatabaseUrl::Postgres(url) => {
                Ok(Store::Postgres(postgres::PgStore::open(url, config).await?))
            }
        }
    }

    /// How many write transactions (groups of writes) SQLite has committed since the
    /// start; PostgreSQL commits each write on its own and does not count.
    pub fn write_commits(&self) -> Option<u64> {
        match self {
            Store::Sqlite(db) => Some(db.write_commits()),
            Store::Postgres(_) => None,
        }
    }

    /// `sqlite` or `postgres`.
    pub fn backend(&self) -> &'static str {
        match self {
            Store::Sqlite(_) => "sqlite",
            Store::Postgres(_) => "postgres",
        }
    }
}

/// Each reader and writer of [`Store`] hands the call to the database that runs; the
/// handlers never know which one it is.
macro_rules! delegate {
    ($( $(#[$doc:meta])* fn $name:ident(&self $(, $arg:ident: $ty:ty)*) -> $ret:ty; )*) => {
        impl Store {
            $(
                $(#[$doc])*
                pub async fn $name(&self $(, $arg: $ty)*) -> $ret {
                    match self {
                        Store::Sqlite(db) => db.$name($($arg),*).await,
                        Store::Postgres(db) => db.$name($($arg),*).await,
                    }
                }
            )*
        }
    };
}

delegate! {
    /// Whether the database answers a query.
    fn ping(&self) -> Result<(), ApiError>;
    /// A page of notes not in the trash, newest first.
    fn list_notes(&self, scope: &str, limit: u32, cursor: Option<&Cursor>) -> Result<NotesPage, ApiError>;
    /// A page of the notes in the trash, latest moved first.
    fn list_trash(&self, scope: &str, limit: u32, cursor: Option<&Cursor>) -> Result<NotesPage, ApiError>;
    /// One note (in the trash or not).
    fn get_note(&self, scope: &str, id: &str) -> Result<Option<Note>, ApiError>;
    /// Every revision of a note, oldest first; `None` if there is no such note.
    fn revisions(&self, scope: &str, id: &str) -> Result<Option<Vec<Revision>>, ApiError>;
    /// Notes matching `query` (not in the trash), best first: `limit` from `offset`.
    fn search(&self, scope: &str, query: &SearchQuery, limit: u32, offset: u32) -> Result<Vec<Note>, ApiError>;
    /// Every note of a scope (for an export), in the trash or not, oldest first.
    fn all_notes(&self, scope: &str) -> Result<Vec<Note>, ApiError>;
    /// Deletes for good the notes that went to the trash before `cutoff`.
    fn empty_trash_before(&self, cutoff: &str, now: &str) -> Result<u64, ApiError>;
    /// Deletes expired idempotency rows; returns how many went.
    fn sweep_expired(&self, now: &str) -> Result<u64, ApiError>;
    /// Deletes what deletes for good before `cutoff` left behind (tombstones and the keys
    /// of the notes they deleted).
    fn sweep_tombstones(&self, cutoff: &str) -> Result<u64, ApiError>;
    /// Deletes expired sessions.
    fn sweep_sessions(&self, now: &str) -> Result<u64, ApiError>;
    /// Closes every connection (at shutdown).
    fn close(&self) -> ();
    /// How many accounts exist.
    fn user_count(&self) -> Result<i64, ApiError>;
    /// Whether the first admin exists.
    fn setup_done(&self) -> Result<bool, ApiError>;
    /// Makes `user` the first admin unless another setup won (false then).
    fn create_first_admin(&self, user: &NewUser) -> Result<bool, ApiError>;
    /// Keeps a one-time setup link's token (as its digest); the links printed at earlier
    /// starts stop working.
    fn add_setup_token(&self, token_hash: &str, now: &str) -> Result<(), ApiError>;
    /// Whether a setup link is one this server printed.
    fn setup_token_exists(&self, token_hash: &str) -> Result<bool, ApiError>;
    /// A new account (409 if the name is taken).
    fn create_user(&self, user: &NewUser) -> Result<(), ApiError>;
    /// A user and their password hash, by name (any case).
    fn user_by_name(&self, username: &str) -> Result<Option<(User, String)>, ApiError>;
    /// A user and their password hash, by id.
    fn user_by_id(&self, id: &str) -> Result<Option<(User, String)>, ApiError>;
    /// Every account.
    fn list_users(&self) -> Result<Vec<User>, ApiError>;
    /// Disables (ending every session) or enables an account; false if there is none.
    fn set_disabled(&self, id: &str, disabled_at: Option<&str>) -> Result<bool, ApiError>;
    /// A new password; every session of the user ends.
    fn set_password(&self, id: &str, hash: &str, now: &str) -> Result<(), ApiError>;
    /// A new session.
    fn create_session(&self, token_hash: &str, user_id: &str, now: &str, expires_at: &str) -> Result<(), ApiError>;
    /// The person a live session belongs to, and when it was last seen.
    fn session_viewer(&self, token_hash: &str, now: &str) -> Result<Option<(Viewer, String)>, ApiError>;
    /// Keeps a session alive.
    fn touch_session(&self, token_hash: &str, now: &str, expires_at: &str) -> Result<(), ApiError>;
    /// Ends a session.
    fn delete_session(&self, token_hash: &str) -> Result<(), ApiError>;
    /// A new invitation.
    fn create_invitation(&self, token_hash: &str, created_by: &str, now: &str, expires_at: &str) -> Result<(), ApiError>;
    /// Uses an invitation once to make `user`; false if it was used or expired.
    fn accept_invitation(&self, token_hash: &str, user: &NewUser) -> Result<bool, ApiError>;
    /// Whether an invitation can still be used (not used, not expired at `now`).
    fn invitation_open(&self, token_hash: &str, now: &str) -> Result<bool, ApiError>;
    /// Counts an attempt in a limit's bucket, in one statement: unless the bucket is
    /// locked at `now`, its count goes up by one (a window begun before `cutoff`, or a
    /// lock that has passed, starts over at one), and a count past `max` locks it until
    /// `lock_until`. Returns the count and the lock, if any.
    fn take_attempt(&self, bucket: &str, now: &str, cutoff: &str, max: i64, lock_until: &str) -> Result<(i64, Option<String>), ApiError>;
    /// Locks a limit's bucket until `until`.
    fn lock_bucket(&self, bucket: &str, until: &str) -> Result<(), ApiError>;
    /// Gives back one attempt counted in a bucket (its lock, if any, stays).
    fn refund_attempt(&self, bucket: &str) -> Result<(), ApiError>;
    /// Starts a bucket's count over after a success — unless it is locked at `now`: a
    /// success never lifts a lock.
    fn reset_attempts(&self, bucket: &str, now: &str) -> Result<(), ApiError>;
    /// Deletes the buckets whose window began before `cutoff` and which are not locked
    /// at `now`.
    fn sweep_limits(&self, now: &str, cutoff: &str) -> Result<u64, ApiError>;
    /// The benchmark's baseline: the same note insert with no idempotency at all.
    #[cfg(feature = "bench-plain-insert")]
    fn plain_insert(&self, scope: &str, key: &IdempotencyKey, fingerprint: &Fingerprint, note: &Note) -> Result<bool, ApiError>;
}

/// The idempotency side of a database: read a committed answer; run a write under its
/// claimed key.
pub trait Backend: Send + Sync {
    /// The committed answer for `key`, read without taking the write lock.
    fn find_answer(
        &self,
        scope: &str,
        key: &IdempotencyKey,
    ) -> impl Future<Output = Result<Option<SavedAnswer>, ApiError>> + Send;

    /// In one write transaction: claims the ticket's key (replaying what it holds if
    /// another request finished first), runs `work`, stores its answer with the key
    /// and commits. Answers only once the write is durable; a failure leaves nothing.
    fn write<W: Work>(
        &self,
        ticket: ClaimTicket,
        work: Arc<W>,
    ) -> impl Future<Output = Result<Answer, ApiError>> + Send;
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
    ) -> impl Future<Output = Result<Applied, ApiError>> + Send;
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
