//! The SQLite implementation: one file, WAL, `synchronous=FULL`.
//!
//! - Two pools. Writes go through a pool of exactly one connection, so a write waiting
//!   for its turn waits for that connection and holds nothing else; reads (pages, lists,
//!   replays, `/healthz`) use a pool of their own and, with WAL, never wait for a writer.
//! - `synchronous=FULL` fsyncs the WAL at every commit: an answer is only sent for a write
//!   that is on disk and survives a crash or a power loss.
//! - A write transaction is `BEGIN IMMEDIATE`: it holds SQLite's write lock from its
//!   first statement, so reading the key's row and then writing it cannot race another
//!   writer (another process on the same file, a backup). The lock is waited for
//!   `key_wait` at most; past that the answer is 503 `database-busy`.

use std::str::FromStr;
use std::time::Duration;

use anyhow::Context;
use app::api::{Note, NotesPage};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Sqlite, SqlitePool, Transaction};

use crate::error::ApiError;
use crate::idempotency::{
    ClaimTicket, Fingerprint, IdempotencyKey, NextAction, SavedAnswer, StoredAnswer,
};
use crate::notes::cursor::Cursor;
use crate::storage::{Backend, NoteWrites};

/// Connections for reads. Readers never block each other or the writer.
const READERS: u32 = 8;

#[derive(Clone)]
pub struct SqliteStore {
    writer: SqlitePool,
    reader: SqlitePool,
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `url` and migrates it.
    pub async fn open(url: &str, key_wait: Duration) -> anyhow::Result<Self> {
        let options = SqliteConnectOptions::from_str(url)
            .with_context(|| format!("DATABASE_URL {url:?} is not a valid sqlite: URL"))?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(key_wait);
        if let Some(parent) = options.get_filename().parent()
            && !parent.as_os_str().is_empty()
        {
            std::fs::create_dir_all(parent).with_context(|| {
                format!("could not create the database folder {}", parent.display())
            })?;
        }
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .acquire_timeout(key_wait)
            .connect_with(options.clone())
            .await
            .with_context(|| format!("could not open the database at {url}"))?;
        sqlx::migrate!("../migrations")
            .run(&writer)
            .await
            .context("could not apply the database migrations")?;
        let reader = SqlitePoolOptions::new()
            .max_connections(READERS)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options.pragma("query_only", "ON"))
            .await
            .with_context(|| format!("could not open the database at {url} for reading"))?;
        Ok(Self { writer, reader })
    }

    pub async fn ping(&self) -> Result<(), ApiError> {
        sqlx::query_scalar::<_, i64>("SELECT 1")
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
        // One more than asked tells whether another page exists.
        let fetch = i64::from(limit) + 1;
        let rows: Vec<NoteRow> = match cursor {
            None => {
                sqlx::query_as(
                    "SELECT id, title, body, written_at, created_at, updated_at, version \
                     FROM notes WHERE scope = ? ORDER BY created_at DESC, id DESC LIMIT ?",
                )
                .bind(scope)
                .bind(fetch)
                .fetch_all(&self.reader)
                .await?
            }
            Some(c) => {
                sqlx::query_as(
                    "SELECT id, title, body, written_at, created_at, updated_at, version \
                     FROM notes WHERE scope = ? AND (created_at, id) < (?, ?) \
                     ORDER BY created_at DESC, id DESC LIMIT ?",
                )
                .bind(scope)
                .bind(&c.created_at)
                .bind(&c.id)
                .bind(fetch)
                .fetch_all(&self.reader)
                .await?
            }
        };
        let notes = rows.into_iter().map(Note::from).collect();
        Ok(Cursor::page(notes, limit))
    }

    pub async fn get_note(&self, scope: &str, id: &str) -> Result<Option<Note>, ApiError> {
        let row: Option<NoteRow> = sqlx::query_as(
            "SELECT id, title, body, written_at, created_at, updated_at, version FROM notes \
             WHERE scope = ? AND id = ?",
        )
        .bind(scope)
        .bind(id)
        .fetch_optional(&self.reader)
        .await?;
        Ok(row.map(Note::from))
    }

    pub async fn sweep_expired(&self, now: &str) -> Result<u64, ApiError> {
        let result = sqlx::query("DELETE FROM idempotency_keys WHERE expires_at < ?")
            .bind(now)
            .execute(&self.writer)
            .await?;
        Ok(result.rows_affected())
    }

    pub async fn close(&self) {
        self.reader.close().await;
        self.writer.close().await;
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
        insert_note(&self.writer, scope, key, fingerprint, note).await
    }
}

/// A write transaction holding SQLite's write lock and a claimed key.
pub struct SqliteTx(Transaction<'static, Sqlite>);

impl Backend for SqliteStore {
    type Tx = SqliteTx;

    async fn find_answer(
        &self,
        scope: &str,
        key: &IdempotencyKey,
    ) -> Result<Option<SavedAnswer>, ApiError> {
        saved_answer(&self.reader, scope, key).await
    }

    async fn begin(&self, ticket: &ClaimTicket) -> Result<NextAction<SqliteTx>, ApiError> {
        let mut tx = self.writer.begin_with("BEGIN IMMEDIATE").await?;
        // Under the write lock no one else can claim the key between this read and the
        // insert in `finish`.
        match saved_answer(&mut *tx, &ticket.scope, &ticket.key).await? {
            Some(saved) => {
                tx.rollback().await?;
                Ok(NextAction::ReturnSaved(saved))
            }
            None => Ok(NextAction::Start(SqliteTx(tx))),
        }
    }

    async fn finish(
        &self,
        tx: SqliteTx,
        ticket: &ClaimTicket,
        answer: &StoredAnswer,
    ) -> Result<(), ApiError> {
        let mut tx = tx.0;
        sqlx::query(
            "INSERT INTO idempotency_keys (scope, idempotency_key, request_fingerprint, \
             response_status, response_headers, response_body, created_at, expires_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&ticket.scope)
        .bind(ticket.key.as_str())
        .bind(ticket.fingerprint.as_str())
        .bind(i64::from(answer.status))
        .bind(answer.headers_json())
        .bind(&answer.body)
        .bind(&ticket.created_at)
        .bind(&ticket.expires_at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }
}

async fn saved_answer<'e>(
    executor: impl sqlx::SqliteExecutor<'e>,
    scope: &str,
    key: &IdempotencyKey,
) -> Result<Option<SavedAnswer>, ApiError> {
    let row: Option<(String, i64, String, Vec<u8>)> = sqlx::query_as(
        "SELECT request_fingerprint, response_status, response_headers, response_body \
         FROM idempotency_keys WHERE scope = ? AND idempotency_key = ?",
    )
    .bind(scope)
    .bind(key.as_str())
    .fetch_optional(executor)
    .await?;
    row.map(|(fingerprint, status, headers, body)| {
        Ok(SavedAnswer {
            fingerprint: Fingerprint::from_stored(fingerprint),
            answer: StoredAnswer::from_stored(status, &headers, body)?,
        })
    })
    .transpose()
}

impl NoteWrites for SqliteTx {
    async fn insert_note(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
        note: &Note,
    ) -> Result<bool, ApiError> {
        insert_note(&mut *self.0, scope, key, fingerprint, note).await
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
        let row: Option<Row> = sqlx::query_as(
            "SELECT id, title, body, written_at, created_at, updated_at, version, \
             request_fingerprint FROM notes WHERE scope = ? AND idempotency_key = ?",
        )
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
}

/// Inserts a note carrying its key; false if the key already has its note.
async fn insert_note<'e>(
    executor: impl sqlx::SqliteExecutor<'e>,
    scope: &str,
    key: &IdempotencyKey,
    fingerprint: &Fingerprint,
    note: &Note,
) -> Result<bool, ApiError> {
    let inserted = sqlx::query(
        "INSERT INTO notes (id, scope, idempotency_key, request_fingerprint, title, body, \
         written_at, created_at, updated_at, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) \
         ON CONFLICT (scope, idempotency_key) DO NOTHING",
    )
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
    .execute(executor)
    .await?
    .rows_affected();
    Ok(inserted == 1)
}

#[derive(sqlx::FromRow)]
struct NoteRow {
    id: String,
    title: String,
    body: String,
    written_at: String,
    created_at: String,
    updated_at: String,
    version: i64,
}

impl From<NoteRow> for Note {
    fn from(row: NoteRow) -> Self {
        Note {
            id: row.id,
            title: row.title,
            body: row.body,
            written_at: row.written_at,
            created_at: row.created_at,
            updated_at: row.updated_at,
            version: row.version,
        }
    }
}
