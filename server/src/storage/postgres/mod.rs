//! The PostgreSQL implementation, for several server processes (replicas) on one
//! database. READ COMMITTED throughout; what makes it exact:
//!
//! - A write claims its key by inserting the key's row first thing in its transaction.
//!   A second request with the same key — in this process or another replica — blocks
//!   on that uncommitted row; when the first commits (its answer written into the row)
//!   the second finds the row and replays it; when the first rolls back, the second
//!   claims the key itself. The wait is bounded by `lock_timeout` (`key_wait`): past it
//!   the answer is 409 `idempotency-key-in-use`.
//! - A write reads the note it changes with `FOR UPDATE`, so two replicas editing one
//!   note take turns, and the second sees the first one's version (and merges with it,
//!   or keeps a conflict copy). Waiting longer than `key_wait` for a row is 503.
//! - A transaction PostgreSQL aborts for a deadlock or a serialization failure is run
//!   again by the write pipeline (`idempotency::execute`), never reported as lost.
//! - Background sweeps take rows with `FOR UPDATE SKIP LOCKED` in small batches: two
//!   replicas sweeping at once share the work, and no sweep waits for a save.

mod accounts;

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use app::api::{Note, NotesPage, Revision, RevisionKind};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::{Postgres, Transaction};

use crate::config::{Config, redacted};
use crate::error::ApiError;
use crate::idempotency::{
    Answer, ClaimTicket, Fingerprint, IdempotencyKey, NextAction, SavedAnswer, StoredAnswer,
};
use crate::notes::cursor::{Cursor, Order};
use crate::storage::rows::{NOTE_COLUMNS, NoteRow, RevisionRow, kind_name, revision_kind};
use crate::storage::{Backend, NewRevision, NoteWrites, PastWrite, Work};
use crate::text::cjk;
use crate::text::document;
use crate::text::query::SearchQuery;

/// Rows a sweep takes in one transaction.
const SWEEP_BATCH: i64 = 500;

/// The search document of a note: title words (A), body words (B), CJK bigrams (C).
const SEARCH_DOCUMENT: &str = "setweight(to_tsvector('simple', $1), 'A') || \
     setweight(to_tsvector('simple', $2), 'B') || setweight(to_tsvector('simple', $3), 'C')";

/// The full-text match of a search: `q` the parsed query (`$1`, from
/// `SearchQuery::to_tsquery`), `$2` the person's [`scope_lexeme`]. Both go to the index
/// `notes_scoped_search` together, so it yields the person's own matches only: another
/// person's notes holding the word are never read, and cannot show in the time taken.
pub const SEARCH_MATCH: &str = "search_scope @@ $2::tsquery AND search @@ q";

/// A search: `$1` the query (`SearchQuery::to_tsquery`), `$2` the person's
/// [`scope_lexeme`], `$3` the scope, `$4` and `$5` the page's limit and offset.
///
/// The query is a subquery the planner does not look into (`OFFSET 0`): with the word in
/// sight, its statistics (how many notes hold it, anyone's) would choose the plan, and a
/// word other people's notes hold often would be answered by a sequential scan over
/// everyone's notes, a rare one by the index: the time would tell which. Without it,
/// every search takes the scoped index.
pub fn search_sql() -> String {
    format!(
        "SELECT {NOTE_COLUMNS} FROM notes, \
         (SELECT to_tsquery('simple', $1) AS q OFFSET 0) AS query \
         WHERE scope = $3 AND trashed_at IS NULL AND {SEARCH_MATCH} \
         ORDER BY ts_rank_cd('{{0.1, 0.1, 0.1, 1.0}}', search, q, 1) DESC, created_at DESC, id \
         LIMIT $4 OFFSET $5"
    )
}

/// The scope as a tsquery of its one lexeme (as `search_scope` holds it).
pub fn scope_lexeme(scope: &str) -> String {
    crate::text::query::lexeme(scope)
}

#[derive(Clone)]
pub struct PgStore {
    /// Connections for writes (and sweeps).
    pub(super) pool: PgPool,
    /// Connections for reads: a write waiting for a lock holds its connection, and reads
    /// (pages, lists, replays, `/healthz`) must never wait for one.
    pub(super) reader: PgPool,
    /// How long a write waits for a row another transaction holds.
    key_wait: Duration,
}

impl PgStore {
    /// Connects and migrates (under sqlx's advisory lock: replicas starting together
    /// migrate once).
    pub async fn open(url: &str, config: &Config) -> anyhow::Result<Self> {
        let options = PgConnectOptions::from_str(url)
            .with_context(|| {
                format!(
                    "DATABASE_URL {} is not a valid postgres:// URL",
                    redacted(url)
                )
            })?
            .application_name("oncenote")
            // An answer goes out only for a write that is on disk (whatever the server's
            // default is).
            .options([("synchronous_commit", "on")]);
        let pools = PgPoolOptions::new()
            .max_connections(config.db_pool_size)
            .acquire_timeout(config.db_connect_timeout);
        let pool = pools
            .clone()
            .connect_with(options.clone())
            .await
            .with_context(|| format!("could not connect to the database at {}", redacted(url)))?;
        let reader = pools.connect_lazy_with(options);
        let fsync: String = sqlx::query_scalar("SELECT current_setting('fsync')")
            .fetch_one(&pool)
            .await?;
        if fsync != "on" {
            anyhow::bail!(
                "the PostgreSQL server runs with fsync={fsync}: a write it acknowledged could \
                 be lost in a crash, which oncenote promises never happens; turn fsync on"
            );
        }
        sqlx::migrate!("../migrations/postgres")
            .run(&pool)
            .await
            .context("could not apply the database migrations")?;
        refold(&pool)
            .await
            .context("could not make the listed search documents again")?;
        Ok(Self {
            pool,
            reader,
            key_wait: config.key_wait,
        })
    }

    /// A write transaction whose lock waits are bounded by `key_wait`.
    async fn begin_write(&self) -> Result<Transaction<'static, Postgres>, ApiError> {
        let mut tx = self.pool.begin().await?;
        // SET does not take parameters; the value is a number this server formats.
        sqlx::query(&format!(
            "SET LOCAL lock_timeout = '{}ms'",
            self.key_wait.as_millis().max(1)
        ))
        .execute(&mut *tx)
        .await?;
        Ok(tx)
    }

    pub async fn ping(&self) -> Result<(), ApiError> {
        sqlx::query_scalar::<_, i32>("SELECT 1")
            .fetch_one(&self.reader)
            .await?;
        Ok(())
    }

    pub async fn list_notes(
        &self,
        scope: &str,
        limit: u32,
        cursor: Option<&Cursor>,
    ) -> Result<NotesPage, ApiError> {
        let fetch = i64::from(limit) + 1;
        let rows: Vec<NoteRow> = match cursor {
            None => {
                sqlx::query_as(&format!(
                    "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = $1 AND trashed_at IS NULL \
                     ORDER BY created_at DESC, id DESC LIMIT $2"
                ))
                .bind(scope)
                .bind(fetch)
                .fetch_all(&self.reader)
                .await?
            }
            Some(c) => {
                sqlx::query_as(&format!(
                    "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = $1 AND trashed_at IS NULL \
                     AND (created_at, id) < ($2, $3) ORDER BY created_at DESC, id DESC LIMIT $4"
                ))
                .bind(scope)
                .bind(&c.at)
                .bind(&c.id)
                .bind(fetch)
                .fetch_all(&self.reader)
                .await?
            }
        };
        let notes = rows.into_iter().map(Note::from).collect();
        Ok(Cursor::page(notes, limit, Order::Created))
    }

    pub async fn list_trash(
        &self,
        scope: &str,
        limit: u32,
        cursor: Option<&Cursor>,
    ) -> Result<NotesPage, ApiError> {
        let fetch = i64::from(limit) + 1;
        let rows: Vec<NoteRow> =
            match cursor {
                None => sqlx::query_as(&format!(
                    "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = $1 AND trashed_at IS NOT NULL \
                     ORDER BY trashed_at DESC, id DESC LIMIT $2"
                ))
                .bind(scope)
                .bind(fetch)
                .fetch_all(&self.reader)
                .await?,
                Some(c) => sqlx::query_as(&format!(
                    "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = $1 AND trashed_at IS NOT NULL \
                     AND (trashed_at, id) < ($2, $3) ORDER BY trashed_at DESC, id DESC LIMIT $4"
                ))
                .bind(scope)
                .bind(&c.at)
                .bind(&c.id)
                .bind(fetch)
                .fetch_all(&self.reader)
                .await?,
            };
        let notes = rows.into_iter().map(Note::from).collect();
        Ok(Cursor::page(notes, limit, Order::Trashed))
    }

    pub async fn revisions(
        &self,
        scope: &str,
        id: &str,
    ) -> Result<Option<Vec<Revision>>, ApiError> {
        if unstorable(id) {
            return Ok(None);
        }
        let rows: Vec<RevisionRow> = sqlx::query_as(
            "SELECT version, title, body, created_at, kind FROM revisions \
             WHERE scope = $1 AND note_id = $2 ORDER BY version",
        )
        .bind(scope)
        .bind(id)
        .fetch_all(&self.reader)
        .await?;
        if rows.is_empty() {
            return Ok(None);
        }
        rows.into_iter()
            .map(Revision::try_from)
            .collect::<Result<_, _>>()
            .map(Some)
    }

    pub async fn search(
        &self,
        scope: &str,
        query: &SearchQuery,
        limit: u32,
        offset: u32,
    ) -> Result<Vec<Note>, ApiError> {
        // The title weighs ten times the body and the bigrams; the rank is divided by
        // 1 + log(length) so a long note does not win by its length alone (as bm25 does on
        // SQLite); ties go to the newer note.
        let rows: Vec<NoteRow> = sqlx::query_as(&search_sql())
            .bind(query.to_tsquery())
            .bind(scope_lexeme(scope))
            .bind(scope)
            .bind(i64::from(limit))
            .bind(i64::from(offset))
            .fetch_all(&self.reader)
            .await?;
        Ok(rows.into_iter().map(Note::from).collect())
    }

    pub async fn empty_trash_before(&self, cutoff: &str, now: &str) -> Result<u64, ApiError> {
        let mut emptied = 0;
        loop {
            let mut tx = self.pool.begin().await?;
            let expired: Vec<(String, String)> = sqlx::query_as(
                "SELECT scope, id FROM notes WHERE trashed_at IS NOT NULL AND trashed_at < $1 \
                 ORDER BY trashed_at LIMIT $2 FOR UPDATE SKIP LOCKED",
            )
            .bind(cutoff)
            .bind(SWEEP_BATCH)
            .fetch_all(&mut *tx)
            .await?;
            for (scope, id) in &expired {
                purge_note(&mut tx, scope, id, None, None, now).await?;
            }
            tx.commit().await?;
            emptied += expired.len() as u64;
            if (expired.len() as i64) < SWEEP_BATCH {
                return Ok(emptied);
            }
        }
    }

    pub async fn get_note(&self, scope: &str, id: &str) -> Result<Option<Note>, ApiError> {
        if unstorable(id) {
            return Ok(None);
        }
        let row: Option<NoteRow> = sqlx::query_as(&format!(
            "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = $1 AND id = $2"
        ))
        .bind(scope)
        .bind(id)
        .fetch_optional(&self.reader)
        .await?;
        Ok(row.map(Note::from))
    }

    pub async fn sweep_expired(&self, now: &str) -> Result<u64, ApiError> {
        sweep(
            &self.pool,
            "DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys \
             WHERE expires_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)",
            now,
        )
        .await
    }

    pub async fn sweep_tombstones(&self, cutoff: &str) -> Result<u64, ApiError> {
        let mut deleted = 0;
        for table in ["purged_keys", "tombstones"] {
            deleted += sweep(
                &self.pool,
                &format!(
                    "DELETE FROM {table} WHERE ctid IN (SELECT ctid FROM {table} \
                     WHERE purged_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)"
                ),
                cutoff,
            )
            .await?;
        }
        Ok(deleted)
    }

    pub async fn all_notes(&self, scope: &str) -> Result<Vec<Note>, ApiError> {
        let rows: Vec<NoteRow> = sqlx::query_as(&format!(
            "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = $1 ORDER BY created_at, id"
        ))
        .bind(scope)
        .fetch_all(&self.reader)
        .await?;
        Ok(rows.into_iter().map(Note::from).collect())
    }

    pub async fn close(&self) {
        self.reader.close().await;
        self.pool.close().await;
    }

    /// The benchmark's baseline: the same note insert in autocommit mode, with no
    /// idempotency at all (`--features bench-plain-insert` only).
    #[cfg(feature = "bench-plain-insert")]
    pub async fn plain_insert(
        &self,
        scope: &str,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
        note: &Note,
    ) -> Result<bool, ApiError> {
        insert_note(&self.pool, scope, key, fingerprint, note).await
    }
}

/// Deletes rows a `DELETE … WHERE ctid IN (… LIMIT $2 FOR UPDATE SKIP LOCKED)` picks,
/// batch after batch, until a batch comes back short.
async fn sweep(pool: &PgPool, statement: &str, now: &str) -> Result<u64, ApiError> {
    let mut deleted = 0;
    loop {
        let batch = sqlx::query(statement)
            .bind(now)
            .bind(SWEEP_BATCH)
            .execute(pool)
            .await?
            .rows_affected();
        deleted += batch;
        if (batch as i64) < SWEEP_BATCH {
            return Ok(deleted);
        }
    }
}

/// Whether `text` could never be in the database: PostgreSQL text cannot hold NUL, and a
/// query with it fails instead of finding nothing (SQLite simply finds nothing). Ids come
/// from the request path, so `/api/notes/%00` is an id like any other — and not found.
pub(super) fn unstorable(text: &str) -> bool {
    text.contains('\0')
}

/// A write transaction holding a claimed key.
pub struct PgTx(Transaction<'static, Postgres>);

/// How many times a write whose transaction PostgreSQL aborted for a conflict with
/// another (a deadlock, a serialization failure) is run again, from the start, before
/// the client is told the database is busy (it retries with the same key).
const CONFLICT_RETRIES: u32 = 5;

impl Backend for PgStore {
    async fn find_answer(
        &self,
        scope: &str,
        key: &IdempotencyKey,
    ) -> Result<Option<SavedAnswer>, ApiError> {
        saved_answer(&self.reader, scope, key).await
    }

    async fn write<W: Work>(&self, ticket: ClaimTicket, work: Arc<W>) -> Result<Answer, ApiError> {
        let mut conflicts = 0;
        loop {
            let attempt = async {
                match self.claim(&ticket).await? {
                    NextAction::ReturnSaved(saved) => saved.replay_for(&ticket.fingerprint),
                    NextAction::Start(mut tx) => {
                        let applied = work.run(&mut tx, &ticket.scope, &ticket.key).await?;
                        self.store_answer(tx, &ticket, &applied.answer).await?;
                        Ok(applied.into_answer())
                    }
                }
            };
            match attempt.await {
                // Nothing of the aborted attempt was kept: run it again.
                Err(ApiError::TransactionConflict) if conflicts < CONFLICT_RETRIES => {
                    conflicts += 1;
                    tracing::info!(key = %ticket.key, conflicts, "transaction conflict; running the write again");
                }
                Err(ApiError::TransactionConflict) => return Err(ApiError::Busy),
                other => return other,
            }
        }
    }
}

impl PgStore {
    /// Begins a write transaction and claims the key in it.
    async fn claim(&self, ticket: &ClaimTicket) -> Result<NextAction<PgTx>, ApiError> {
        let mut tx = self.begin_write().await?;
        // The claim: blocks while another transaction holds an uncommitted claim on the
        // key; does nothing when a committed one exists.
        let claimed = sqlx::query(
            "INSERT INTO idempotency_keys (scope, idempotency_key, request_fingerprint, \
             response_status, response_headers, response_body, created_at, expires_at) \
             VALUES ($1, $2, $3, 0, '[]', '', $4, $5) \
             ON CONFLICT (scope, idempotency_key) DO NOTHING",
        )
        .bind(&ticket.scope)
        .bind(ticket.key.as_str())
        .bind(ticket.fingerprint.as_str())
        .bind(&ticket.created_at)
        .bind(&ticket.expires_at)
        .execute(&mut *tx)
        .await
        .map_err(|error| {
            let lock_timeout = matches!(&error, sqlx::Error::Database(db) if db.code().as_deref() == Some("55P03"));
            if lock_timeout {
                // Waited `key_wait` for the other request with this key: it is still running.
                ApiError::IdempotencyKeyInUse
            } else {
                ApiError::from(error)
            }
        })?
        .rows_affected();
        if claimed == 1 {
            return Ok(NextAction::Start(PgTx(tx)));
        }
        // A committed answer is there (READ COMMITTED: this statement sees it).
        let saved = saved_answer(&mut *tx, &ticket.scope, &ticket.key).await?;
        tx.rollback().await?;
        match saved {
            Some(saved) => Ok(NextAction::ReturnSaved(saved)),
            // Swept between the two statements: the client retries with the same key.
            None => Err(ApiError::TransactionConflict),
        }
    }

    /// Stores `answer` with the claim and commits everything the transaction wrote.
    async fn store_answer(
        &self,
        tx: PgTx,
        ticket: &ClaimTicket,
        answer: &StoredAnswer,
    ) -> Result<(), ApiError> {
        let mut tx = tx.0;
        let stored = sqlx::query(
            "UPDATE idempotency_keys SET response_status = $3, response_headers = $4, \
             response_body = $5 WHERE scope = $1 AND idempotency_key = $2",
        )
        .bind(&ticket.scope)
        .bind(ticket.key.as_str())
        .bind(i32::from(answer.status))
        .bind(answer.headers_json())
        .bind(&answer.body)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if stored != 1 {
            // The claim is gone from under this transaction: commit nothing.
            tx.rollback().await?;
            return Err(ApiError::Internal(anyhow::anyhow!(
                "the claim on key {} was not found when its answer was stored",
                ticket.key
            )));
        }
        tx.commit().await?;
        Ok(())
    }
}

async fn saved_answer<'e>(
    executor: impl sqlx::PgExecutor<'e>,
    scope: &str,
    key: &IdempotencyKey,
) -> Result<Option<SavedAnswer>, ApiError> {
    let row: Option<(String, i32, String, Vec<u8>)> = sqlx::query_as(
        "SELECT request_fingerprint, response_status, response_headers, response_body \
         FROM idempotency_keys WHERE scope = $1 AND idempotency_key = $2 AND response_status > 0",
    )
    .bind(scope)
    .bind(key.as_str())
    .fetch_optional(executor)
    .await?;
    row.map(|(fingerprint, status, headers, body)| {
        Ok(SavedAnswer {
            fingerprint: Fingerprint::from_stored(fingerprint),
            answer: StoredAnswer::from_stored(i64::from(status), &headers, body)?,
        })
    })
    .transpose()
}

impl NoteWrites for PgTx {
    async fn insert_note(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
        note: &Note,
    ) -> Result<bool, ApiError> {
        if !insert_note(&mut *self.0, scope, key, fingerprint, note).await? {
            return Ok(false);
        }
        insert_revision(
            &mut self.0,
            scope,
            note,
            NewRevision {
                version: note.version,
                kind: RevisionKind::Create,
                key,
                fingerprint,
            },
        )
        .await?;
        Ok(true)
    }

    async fn note_created_by(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
    ) -> Result<Option<(Note, Fingerprint)>, ApiError> {
        #[derive(sqlx::FromRow)]
        struct Row {
            #[sqlx(flatten)]
            note: NoteRow,
            request_fingerprint: String,
        }
        let row: Option<Row> = sqlx::query_as(&format!(
            "SELECT {NOTE_COLUMNS}, request_fingerprint FROM notes \
             WHERE scope = $1 AND idempotency_key = $2"
        ))
        .bind(scope)
        .bind(key.as_str())
        .fetch_optional(&mut *self.0)
        .await?;
        Ok(row.map(|r| {
            (
                r.note.into(),
                Fingerprint::from_stored(r.request_fingerprint),
            )
        }))
    }

    async fn past_write(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
    ) -> Result<Option<(PastWrite, Fingerprint)>, ApiError> {
        let revision: Option<(String, String, String)> = sqlx::query_as(
            "SELECT note_id, kind, request_fingerprint FROM revisions \
             WHERE scope = $1 AND idempotency_key = $2",
        )
        .bind(scope)
        .bind(key.as_str())
        .fetch_optional(&mut *self.0)
        .await?;
        if let Some((note_id, kind, fingerprint)) = revision {
            return Ok(Some((
                PastWrite::Revision {
                    note_id,
                    kind: revision_kind(&kind)?,
                },
                Fingerprint::from_stored(fingerprint),
            )));
        }
        let purge: Option<(String, Option<String>)> = sqlx::query_as(
            "SELECT note_id, request_fingerprint FROM tombstones \
             WHERE scope = $1 AND idempotency_key = $2",
        )
        .bind(scope)
        .bind(key.as_str())
        .fetch_optional(&mut *self.0)
        .await?;
        if let Some((note_id, fingerprint)) = purge {
            return Ok(Some((
                PastWrite::Purge { note_id },
                Fingerprint::from_stored(fingerprint.unwrap_or_default()),
            )));
        }
        let deleted: Option<(String, String, String)> = sqlx::query_as(
            "SELECT note_id, kind, request_fingerprint FROM purged_keys \
             WHERE scope = $1 AND idempotency_key = $2",
        )
        .bind(scope)
        .bind(key.as_str())
        .fetch_optional(&mut *self.0)
        .await?;
        deleted
            .map(|(note_id, kind, fingerprint)| {
                Ok((
                    PastWrite::Deleted {
                        note_id,
                        kind: revision_kind(&kind)?,
                    },
                    Fingerprint::from_stored(fingerprint),
                ))
            })
            .transpose()
    }

    /// The note, locked until the transaction ends: a write on another replica waits.
    async fn note(&mut self, scope: &str, id: &str) -> Result<Option<Note>, ApiError> {
        if unstorable(id) {
            return Ok(None);
        }
        let row: Option<NoteRow> = sqlx::query_as(&format!(
            "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = $1 AND id = $2 FOR UPDATE"
        ))
        .bind(scope)
        .bind(id)
        .fetch_optional(&mut *self.0)
        .await?;
        Ok(row.map(Note::from))
    }

    async fn revision_at(
        &mut self,
        scope: &str,
        id: &str,
        version: i64,
    ) -> Result<Option<Revision>, ApiError> {
        let row: Option<RevisionRow> = sqlx::query_as(
            "SELECT version, title, body, created_at, kind FROM revisions \
             WHERE scope = $1 AND note_id = $2 AND version = $3",
        )
        .bind(scope)
        .bind(id)
        .bind(version)
        .fetch_optional(&mut *self.0)
        .await?;
        row.map(Revision::try_from).transpose()
    }

    async fn save_note(
        &mut self,
        scope: &str,
        note: &Note,
        revision: NewRevision<'_>,
    ) -> Result<(), ApiError> {
        let (title, body, cjk) = search_parts(note);
        sqlx::query(&format!(
            "UPDATE notes SET title = $4, body = $5, version = $6, updated_at = $7, \
             trashed_at = $8, search = {} WHERE scope = $9 AND id = $10",
            SEARCH_DOCUMENT
        ))
        .bind(title)
        .bind(body)
        .bind(cjk)
        .bind(&note.title)
        .bind(&note.body)
        .bind(note.version)
        .bind(&note.updated_at)
        .bind(&note.trashed_at)
        .bind(scope)
        .bind(&note.id)
        .execute(&mut *self.0)
        .await?;
        insert_revision(&mut self.0, scope, note, revision).await
    }

    async fn is_purged(&mut self, scope: &str, id: &str) -> Result<bool, ApiError> {
        if unstorable(id) {
            return Ok(false);
        }
        let found: Option<i32> =
            sqlx::query_scalar("SELECT 1 FROM tombstones WHERE scope = $1 AND note_id = $2")
                .bind(scope)
                .bind(id)
                .fetch_optional(&mut *self.0)
                .await?;
        Ok(found.is_some())
    }

    async fn purge(
        &mut self,
        scope: &str,
        id: &str,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
        at: &str,
    ) -> Result<(), ApiError> {
        purge_note(&mut self.0, scope, id, Some(key), Some(fingerprint), at).await
    }
}

/// Deletes a note (its revisions go with it) and leaves its tombstone.
async fn purge_note(
    tx: &mut Transaction<'static, Postgres>,
    scope: &str,
    id: &str,
    key: Option<&IdempotencyKey>,
    fingerprint: Option<&Fingerprint>,
    at: &str,
) -> Result<(), ApiError> {
    // Every key that wrote to the note, kept past the note (see `PastWrite::Deleted`).
    sqlx::query(
        "INSERT INTO purged_keys (scope, idempotency_key, note_id, kind, request_fingerprint, purged_at) \
         SELECT scope, idempotency_key, note_id, kind, request_fingerprint, $1 FROM revisions \
         WHERE scope = $2 AND note_id = $3 ON CONFLICT (scope, idempotency_key) DO NOTHING",
    )
    .bind(at)
    .bind(scope)
    .bind(id)
    .execute(&mut **tx)
    .await?;
    sqlx::query("DELETE FROM notes WHERE scope = $1 AND id = $2")
        .bind(scope)
        .bind(id)
        .execute(&mut **tx)
        .await?;
    sqlx::query(
        "INSERT INTO tombstones (scope, note_id, idempotency_key, request_fingerprint, purged_at) \
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (scope, note_id) DO NOTHING",
    )
    .bind(scope)
    .bind(id)
    .bind(key.map(IdempotencyKey::as_str))
    .bind(fingerprint.map(Fingerprint::as_str))
    .bind(at)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

async fn insert_revision(
    tx: &mut Transaction<'static, Postgres>,
    scope: &str,
    note: &Note,
    revision: NewRevision<'_>,
) -> Result<(), ApiError> {
    sqlx::query(
        "INSERT INTO revisions (scope, note_id, version, kind, title, body, created_at, \
         idempotency_key, request_fingerprint) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(scope)
    .bind(&note.id)
    .bind(revision.version)
    .bind(kind_name(revision.kind))
    .bind(&note.title)
    .bind(&note.body)
    .bind(&note.updated_at)
    .bind(revision.key.as_str())
    .bind(revision.fingerprint.as_str())
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// The three parts of a note's search document (see `SEARCH_DOCUMENT`).
fn search_parts(note: &Note) -> (String, String, String) {
    search_parts_of(&note.title, &note.body)
}

fn search_parts_of(title: &str, body: &str) -> (String, String, String) {
    (
        document::words(title),
        document::words(body),
        cjk::bigrams(&format!("{title}\n{body}")),
    )
}

/// Makes again the search documents of the notes listed in `search_refold` (by a
/// migration, when the folding rule changed), a batch per transaction; replicas starting
/// together share the list.
async fn refold(pool: &PgPool) -> anyhow::Result<()> {
    loop {
        let mut tx = pool.begin().await?;
        let ids: Vec<String> = sqlx::query_scalar(
            "DELETE FROM search_refold WHERE note_id IN \
             (SELECT note_id FROM search_refold LIMIT $1 FOR UPDATE SKIP LOCKED) \
             RETURNING note_id",
        )
        .bind(SWEEP_BATCH)
        .fetch_all(&mut *tx)
        .await?;
        if ids.is_empty() {
            return Ok(());
        }
        for id in ids {
            let note: Option<(String, String)> =
                sqlx::query_as("SELECT title, body FROM notes WHERE id = $1 FOR UPDATE")
                    .bind(&id)
                    .fetch_optional(&mut *tx)
                    .await?;
            let Some((title, body)) = note else {
                continue;
            };
            let (title, body, cjk) = search_parts_of(&title, &body);
            sqlx::query(&format!(
                "UPDATE notes SET search = {SEARCH_DOCUMENT} WHERE id = $4"
            ))
            .bind(title)
            .bind(body)
            .bind(cjk)
            .bind(&id)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
    }
}

/// Inserts a note carrying its key; false if the key already has its note.
pub(in crate::storage) async fn insert_note<'e>(
    executor: impl sqlx::PgExecutor<'e>,
    scope: &str,
    key: &IdempotencyKey,
    fingerprint: &Fingerprint,
    note: &Note,
) -> Result<bool, ApiError> {
    let (title, body, cjk) = search_parts(note);
    let inserted = sqlx::query(&format!(
        "INSERT INTO notes (id, scope, idempotency_key, request_fingerprint, title, body, \
         written_at, created_at, updated_at, version, trashed_at, conflict_of, search) \
         VALUES ($4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, {SEARCH_DOCUMENT}) \
         ON CONFLICT (scope, idempotency_key) DO NOTHING"
    ))
    .bind(title)
    .bind(body)
    .bind(cjk)
    .bind(&note.id)
    .bind(scope)
    .bind(key.as_str())
    .bind(fingerprint.as_str())
    .bind(&note.title)
    .bind(&note.body)
    .bind(&note.written_at)
    .bind(&note.created_at)
    .bind(&note.updated_at)
    .bind(note.version)
    .bind(&note.trashed_at)
    .bind(&note.conflict_of)
    .execute(executor)
    .await?
    .rows_affected();
    Ok(inserted == 1)
}
