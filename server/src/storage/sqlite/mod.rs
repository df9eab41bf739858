//! The SQLite implementation: one file, WAL, `synchronous=FULL`.
//!
//! - Two pools. Writes go through a pool of exactly one connection, so a write waiting
//!   for its turn waits for that connection and holds nothing else; reads (pages, lists,
//!   replays, `/healthz`) use a pool of their own and, with WAL, never wait for a writer.
//! - Idempotent writes are jobs for one writing task ([`writer`]), which commits the
//!   writes that arrive together in one transaction (each in its own savepoint): one
//!   fsync for a batch, every answer sent after its batch is on disk.
//! - `synchronous=FULL` fsyncs the WAL at every commit: an answer is only sent for a write
//!   that is on disk and survives a crash or a power loss.
//! - A write transaction is `BEGIN IMMEDIATE`: it holds SQLite's write lock from its
//!   first statement, so reading the key's row and then writing it cannot race another
//!   writer (another process on the same file, a backup). The lock is waited for
//!   `key_wait` at most; past that the answer is 503 `database-busy`.

mod accounts;
pub mod backup;
mod writer;

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use app::api::{Note, NotesPage, Revision, RevisionKind};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{SqliteConnection, SqlitePool};

use crate::error::ApiError;
use crate::idempotency::{
    Answer, ClaimTicket, Fingerprint, IdempotencyKey, SavedAnswer, StoredAnswer,
};
use crate::notes::cursor::{Cursor, Order};
use crate::storage::rows::{NOTE_COLUMNS, NoteRow, RevisionRow, kind_name, revision_kind};
use crate::storage::{Backend, NewRevision, NoteWrites, PastWrite, Work};
use crate::text::cjk;
use crate::text::query::SearchQuery;

/// Connections for reads. Readers never block each other or the writer.
const READERS: u32 = 8;

/// How many of a search's matches (the newest) are ranked; results page through these.
/// Past this many matches a query is too broad to read through anyway, and the
/// newest notes are the likelier ones.
pub const RANKED_MATCHES: i64 = 5_000;

#[derive(Clone)]
pub struct SqliteStore {
    pub(super) writer: SqlitePool,
    pub(super) reader: SqlitePool,
    /// Idempotent writes, committed in groups on `writer`.
    writes: writer::WriteQueue,
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `url` and migrates it.
    /// Up to `write_batch` writes that arrive together share one commit. `max_pages` caps
    /// the database's size (tests: a full disk without a small filesystem).
    pub async fn open(
        url: &str,
        key_wait: Duration,
        write_batch: usize,
        max_pages: Option<u32>,
    ) -> anyhow::Result<Self> {
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
        let writer_options = match max_pages {
            Some(pages) => options.clone().pragma("max_page_count", pages.to_string()),
            None => options.clone(),
        };
        let writer = connect_writer(&writer_options, key_wait)
            .await
            .with_context(|| format!("could not open the database at {url}"))?;
        {
            // sqlx takes no lock for SQLite's migrations: processes starting together
            // take turns through a lock file beside the database.
            let _turn = migration_turn(options.get_filename()).await?;
            sqlx::migrate!("../migrations/sqlite")
                .run(&writer)
                .await
                .context("could not apply the database migrations")?;
        }
        fill_in_cjk(&writer).await?;
        let reader = SqlitePoolOptions::new()
            .max_connections(READERS)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options.pragma("query_only", "ON"))
            .await
            .with_context(|| format!("could not open the database at {url} for reading"))?;
        let writes = writer::WriteQueue::start(writer.clone(), write_batch, key_wait);
        Ok(Self {
            writer,
            reader,
            writes,
        })
    }

    /// Groups of writes committed since the start.
    pub fn write_commits(&self) -> u64 {
        self.writes.commits()
    }

    pub async fn ping(&self) -> Result<(), ApiError> {
        if !self.writes.is_running() {
            return Err(ApiError::Internal(anyhow::anyhow!(
                "the database writer has stopped"
            )));
        }
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
                sqlx::query_as(&format!(
                    "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = ? AND trashed_at IS NULL \
                     ORDER BY created_at DESC, id DESC LIMIT ?"
                ))
                .bind(scope)
                .bind(fetch)
                .fetch_all(&self.reader)
                .await?
            }
            Some(c) => {
                sqlx::query_as(&format!(
                    "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = ? AND trashed_at IS NULL \
                     AND (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT ?"
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
                    "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = ? AND trashed_at IS NOT NULL \
                     ORDER BY trashed_at DESC, id DESC LIMIT ?"
                ))
                .bind(scope)
                .bind(fetch)
                .fetch_all(&self.reader)
                .await?,
                Some(c) => sqlx::query_as(&format!(
                    "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = ? AND trashed_at IS NOT NULL \
                     AND (trashed_at, id) < (?, ?) ORDER BY trashed_at DESC, id DESC LIMIT ?"
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
        let rows: Vec<RevisionRow> = sqlx::query_as(
            "SELECT version, title, body, created_at, kind FROM revisions \
             WHERE scope = ? AND note_id = ? ORDER BY version",
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
        // The title weighs ten times the body; ties go to the newer note. Only the newest
        // RANKED_MATCHES matches are ranked: FTS5 walks its index newest first and stops
        // there, so a word found in nearly every note costs a few thousand scores, not a
        // hundred thousand (at 100,000 notes: ~115 ms → ~12 ms, measured). The scope
        // column (see `search_match`) weighs nothing: it only keeps the match to the
        // person (its one token per note adds one to every length bm25 compares).
        let rows: Vec<NoteRow> = sqlx::query_as(&format!(
            "SELECT {} FROM ( \
                 SELECT n.rowid AS found, bm25(notes_fts, 10.0, 1.0, 1.0, 0.0) AS score \
                 FROM notes_fts JOIN notes n ON n.rowid = notes_fts.rowid \
                 WHERE notes_fts MATCH ? AND n.scope = ? AND n.trashed_at IS NULL \
                 ORDER BY notes_fts.rowid DESC LIMIT ? \
             ) m JOIN notes n ON n.rowid = m.found \
             ORDER BY m.score, n.created_at DESC, n.id LIMIT ? OFFSET ?",
            prefixed("n", NOTE_COLUMNS)
        ))
        .bind(search_match(scope, query))
        .bind(scope)
        .bind(RANKED_MATCHES)
        .bind(i64::from(limit))
        .bind(i64::from(offset))
        .fetch_all(&self.reader)
        .await?;
        Ok(rows.into_iter().map(Note::from).collect())
    }

    pub async fn empty_trash_before(&self, cutoff: &str, now: &str) -> Result<u64, ApiError> {
        let mut emptied = 0;
        loop {
            // Small batches, so a write waiting behind this one waits briefly.
            let mut tx = self.writer.begin_with("BEGIN IMMEDIATE").await?;
            let expired: Vec<(String, String)> = sqlx::query_as(
                "SELECT scope, id FROM notes WHERE trashed_at IS NOT NULL AND trashed_at < ? LIMIT 200",
            )
            .bind(cutoff)
            .fetch_all(&mut *tx)
            .await?;
            for (scope, id) in &expired {
                purge_note(&mut tx, scope, id, None, None, now).await?;
            }
            tx.commit().await?;
            emptied += expired.len() as u64;
            if expired.len() < 200 {
                return Ok(emptied);
            }
        }
    }

    pub async fn get_note(&self, scope: &str, id: &str) -> Result<Option<Note>, ApiError> {
        note_by_id(&self.reader, scope, id).await
    }

    pub async fn sweep_expired(&self, now: &str) -> Result<u64, ApiError> {
        let result = sqlx::query("DELETE FROM idempotency_keys WHERE expires_at < ?")
            .bind(now)
            .execute(&self.writer)
            .await?;
        Ok(result.rows_affected())
    }

    pub async fn sweep_tombstones(&self, cutoff: &str) -> Result<u64, ApiError> {
        let mut deleted = 0;
        for table in ["purged_keys", "tombstones"] {
            deleted += sqlx::query(&format!("DELETE FROM {table} WHERE purged_at < ?"))
                .bind(cutoff)
                .execute(&self.writer)
                .await?
                .rows_affected();
        }
        Ok(deleted)
    }

    pub async fn all_notes(&self, scope: &str) -> Result<Vec<Note>, ApiError> {
        let rows: Vec<NoteRow> = sqlx::query_as(&format!(
            "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = ? ORDER BY created_at, id"
        ))
        .bind(scope)
        .fetch_all(&self.reader)
        .await?;
        Ok(rows.into_iter().map(Note::from).collect())
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

/// The batch's write transaction, inside the savepoint of one write.
pub struct SqliteTx<'c>(&'c mut SqliteConnection);

impl Backend for SqliteStore {
    async fn find_answer(
        &self,
        scope: &str,
        key: &IdempotencyKey,
    ) -> Result<Option<SavedAnswer>, ApiError> {
        saved_answer(&self.reader, scope, key).await
    }

    async fn write<W: Work>(&self, ticket: ClaimTicket, work: Arc<W>) -> Result<Answer, ApiError> {
        self.writes
            .write(Box::new(move |connection| {
                Box::pin(async move {
                    // Under the write lock no one else can claim the key between this
                    // read and the insert below.
                    if let Some(saved) =
                        saved_answer(&mut *connection, &ticket.scope, &ticket.key).await?
                    {
                        return saved.replay_for(&ticket.fingerprint);
                    }
                    let applied = work
                        .run(&mut SqliteTx(&mut *connection), &ticket.scope, &ticket.key)
                        .await?;
                    store_answer(connection, &ticket, &applied.answer).await?;
                    Ok(applied.into_answer())
                })
            }))
            .await
    }
}

/// Keeps a write's answer with its key (in the write's transaction).
async fn store_answer(
    connection: &mut SqliteConnection,
    ticket: &ClaimTicket,
    answer: &StoredAnswer,
) -> Result<(), ApiError> {
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
    .execute(connection)
    .await?;
    Ok(())
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

impl NoteWrites for SqliteTx<'_> {
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
            self.0,
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
             WHERE scope = ? AND idempotency_key = ?"
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
             WHERE scope = ? AND idempotency_key = ?",
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
             WHERE scope = ? AND idempotency_key = ?",
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
             WHERE scope = ? AND idempotency_key = ?",
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

    async fn note(&mut self, scope: &str, id: &str) -> Result<Option<Note>, ApiError> {
        note_by_id(&mut *self.0, scope, id).await
    }

    async fn revision_at(
        &mut self,
        scope: &str,
        id: &str,
        version: i64,
    ) -> Result<Option<Revision>, ApiError> {
        let row: Option<RevisionRow> = sqlx::query_as(
            "SELECT version, title, body, created_at, kind FROM revisions \
             WHERE scope = ? AND note_id = ? AND version = ?",
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
        sqlx::query(
            "UPDATE notes SET title = ?, body = ?, cjk = ?, version = ?, updated_at = ?, \
             trashed_at = ? WHERE scope = ? AND id = ?",
        )
        .bind(&note.title)
        .bind(&note.body)
        .bind(cjk_of(note))
        .bind(note.version)
        .bind(&note.updated_at)
        .bind(&note.trashed_at)
        .bind(scope)
        .bind(&note.id)
        .execute(&mut *self.0)
        .await?;
        insert_revision(self.0, scope, note, revision).await
    }

    async fn is_purged(&mut self, scope: &str, id: &str) -> Result<bool, ApiError> {
        let found: Option<i64> =
            sqlx::query_scalar("SELECT 1 FROM tombstones WHERE scope = ? AND note_id = ?")
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
        purge_note(self.0, scope, id, Some(key), Some(fingerprint), at).await
    }
}

/// Deletes a note (its revisions go with it) and leaves its tombstone.
async fn purge_note(
    tx: &mut SqliteConnection,
    scope: &str,
    id: &str,
    key: Option<&IdempotencyKey>,
    fingerprint: Option<&Fingerprint>,
    at: &str,
) -> Result<(), ApiError> {
    // Every key that wrote to the note, kept past the note (see `PastWrite::Deleted`).
    sqlx::query(
        "INSERT INTO purged_keys (scope, idempotency_key, note_id, kind, request_fingerprint, purged_at) \
         SELECT scope, idempotency_key, note_id, kind, request_fingerprint, ? FROM revisions \
         WHERE scope = ? AND note_id = ? ON CONFLICT (scope, idempotency_key) DO NOTHING",
    )
    .bind(at)
    .bind(scope)
    .bind(id)
    .execute(&mut *tx)
    .await?;
    sqlx::query("DELETE FROM notes WHERE scope = ? AND id = ?")
        .bind(scope)
        .bind(id)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "INSERT INTO tombstones (scope, note_id, idempotency_key, request_fingerprint, purged_at) \
         VALUES (?, ?, ?, ?, ?) ON CONFLICT (scope, note_id) DO NOTHING",
    )
    .bind(scope)
    .bind(id)
    .bind(key.map(IdempotencyKey::as_str))
    .bind(fingerprint.map(Fingerprint::as_str))
    .bind(at)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

async fn insert_revision(
    tx: &mut SqliteConnection,
    scope: &str,
    note: &Note,
    revision: NewRevision<'_>,
) -> Result<(), ApiError> {
    sqlx::query(
        "INSERT INTO revisions (scope, note_id, version, kind, title, body, created_at, \
         idempotency_key, request_fingerprint) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
    .execute(&mut *tx)
    .await?;
    Ok(())
}

async fn note_by_id<'e>(
    executor: impl sqlx::SqliteExecutor<'e>,
    scope: &str,
    id: &str,
) -> Result<Option<Note>, ApiError> {
    let row: Option<NoteRow> = sqlx::query_as(&format!(
        "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = ? AND id = ?"
    ))
    .bind(scope)
    .bind(id)
    .fetch_optional(executor)
    .await?;
    Ok(row.map(Note::from))
}

/// The one write connection. Servers starting together on a new file race to turn it to
/// WAL, and SQLite refuses the losers at once ("database is locked") instead of waiting
/// for the busy timeout: they try again, for up to ten seconds.
async fn connect_writer(
    options: &SqliteConnectOptions,
    key_wait: Duration,
) -> Result<SqlitePool, sqlx::Error> {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let mut pause = Duration::from_millis(20);
    loop {
        let attempt = SqlitePoolOptions::new()
            .max_connections(1)
            .acquire_timeout(key_wait)
            .connect_with(options.clone())
            .await;
        match attempt {
            Err(error)
                if (crate::error::is_busy(&error)
                    || matches!(error, sqlx::Error::PoolTimedOut))
                    && std::time::Instant::now() < deadline =>
            {
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_millis(500));
            }
            other => return other,
        }
    }
}

/// An exclusive lock on `<database>-migrate.lock`, held while migrations run (released
/// when dropped). None for an in-memory database.
async fn migration_turn(database: &std::path::Path) -> anyhow::Result<Option<std::fs::File>> {
    let name = database.as_os_str();
    // sqlx names an in-memory database `file:sqlx-in-memory-N`.
    if name.is_empty() || name == ":memory:" || name.to_string_lossy().starts_with("file:") {
        return Ok(None);
    }
    let mut path = name.to_owned();
    path.push("-migrate.lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("could not open the lock file {}", path.display()))?;
    let file = tokio::task::spawn_blocking(move || file.lock().map(|()| file))
        .await?
        .with_context(|| format!("could not lock {}", path.to_string_lossy()))?;
    Ok(Some(file))
}

/// The FTS5 `MATCH` expression of a search by `scope`: the query, and the person's
/// scope token in the `search_scope` column. FTS5 yields only rows holding both, stepping
/// through the person's list and the word's together, so another person's matches are
/// never joined, read or ranked: their number no longer shows in the time taken (what is
/// left is the stepping, when the two people's notes were written in turns; PROTOCOL.md
/// has the figures). The query's own terms are all on `title`, `body` or `cjk`, so
/// nothing typed can match a scope token.
pub fn search_match(scope: &str, query: &SearchQuery) -> String {
    format!(
        "search_scope: \"s{}\" AND ({})",
        hex::encode(scope.as_bytes()),
        query.to_fts5()
    )
}

/// The CJK bigrams of a note's title and body, for the search index.
fn cjk_of(note: &Note) -> String {
    cjk::bigrams(&format!("{}\n{}", note.title, note.body))
}

/// Fills in the CJK bigrams of notes written before the search index existed.
async fn fill_in_cjk(writer: &SqlitePool) -> anyhow::Result<()> {
    loop {
        let rows: Vec<(i64, String, String)> =
            sqlx::query_as("SELECT rowid, title, body FROM notes WHERE cjk IS NULL LIMIT 500")
                .fetch_all(writer)
                .await?;
        if rows.is_empty() {
            return Ok(());
        }
        let mut tx = writer.begin().await?;
        for (rowid, title, body) in rows {
            sqlx::query("UPDATE notes SET cjk = ? WHERE rowid = ?")
                .bind(cjk::bigrams(&format!("{title}\n{body}")))
                .bind(rowid)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
    }
}

/// `a, b` → `n.a, n.b`.
fn prefixed(table: &str, columns: &str) -> String {
    columns
        .split(", ")
        .map(|c| format!("{table}.{c}"))
        .collect::<Vec<_>>()
        .join(", ")
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
         written_at, created_at, updated_at, version, trashed_at, conflict_of, cjk) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) \
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
    .bind(&note.trashed_at)
    .bind(&note.conflict_of)
    .bind(cjk_of(note))
    .execute(executor)
    .await?
    .rows_affected();
    Ok(inserted == 1)
}
