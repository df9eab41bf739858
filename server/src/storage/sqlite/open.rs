//! Opening the SQLite database: its two pools, the migrations (one process at a time),
//! the search index filled in for older notes; and the store's health and shutdown.

use std::str::FromStr;
use std::time::Duration;

use anyhow::Context;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::{ConnectOptions, Connection, SqlitePool};

use super::{SqliteStore, rank, writer};
use crate::storage::StorageError;
use crate::storage::feed::FeedSignal;
use crate::storage::rows::tags_column;
use crate::text::cjk;

/// Connections for reads. Readers never block each other or the writer.
const READERS: u32 = 8;

impl SqliteStore {
    /// Opens (creating if needed) the database at `url` and migrates it.
    /// Up to `write_batch` writes that arrive together share one commit. The readers map
    /// up to `mmap_bytes` of the file. `max_pages` caps the database's size (tests: a full
    /// disk without a small filesystem).
    pub async fn open(
        url: &str,
        key_wait: Duration,
        write_batch: usize,
        mmap_bytes: u64,
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
        fill_in_tags(&writer).await?;
        // The readers register the rank as each opens; a failure there would stop the start
        // only after the pool's 10 s of retries, its reason in sqlx's log alone. Tried once
        // here, the start fails at once, with the reason.
        let mut probe = options
            .connect()
            .await
            .with_context(|| format!("could not open the database at {url} for reading"))?;
        with_rank(&mut probe)
            .await
            .context("could not register the search's rank function with SQLite's FTS5")?;
        probe.close().await?;
        let reader = SqlitePoolOptions::new()
            .max_connections(READERS)
            // No ping before each use (here and on the writer): a SQLite connection is a
            // file handle in this process, which no network can break, and sqlx's ping
            // is one more trip to the connection's worker thread.
            .test_before_acquire(false)
            .acquire_timeout(Duration::from_secs(10))
            // The search's rank (`rank.rs`): bm25 without weighing the scope token.
            .after_connect(|connection, _| Box::pin(with_rank(connection)))
            // With `mmap_bytes` set (`ONCENOTE_SQLITE_MMAP_MB`; off by default), pages are
            // read from the mapped file, not copied in by a `read()` each: a search at
            // 100,000 notes reads about 10,000 pages (its matches' index entries and
            // rows), and a reader's own cache holds 500. Two servers taking turns on one
            // database: 22.1 → 16.7 ms of server CPU per search with bm25, 14.7 → 13.9 with
            // `rank.rs`, but each create 12.5 % dearer, as each commit unmaps (README).
            .connect_with(
                options
                    .clone()
                    .pragma("query_only", "ON")
                    .pragma("mmap_size", mmap_bytes.to_string()),
            )
            .await
            .with_context(|| format!("could not open the database at {url} for reading"))?;
        let writes =
            writer::WriteQueue::start(writer_options, writer.clone(), write_batch, key_wait);
        Ok(Self {
            writer,
            reader,
            writes,
            feed: FeedSignal::default(),
            file: std::sync::Arc::new(options),
        })
    }

    /// Groups of writes committed since the start.
    pub fn write_commits(&self) -> u64 {
        self.writes.commits()
    }

    pub async fn ping(&self) -> Result<(), StorageError> {
        if !self.writes.is_running() {
            return Err(StorageError::Other(anyhow::anyhow!(
                "the database writer has stopped"
            )));
        }
        sqlx::query_scalar::<_, i64>("SELECT 1")
            .fetch_one(&self.reader)
            .await?;
        Ok(())
    }

    pub async fn close(&self) {
        close_pool(&self.reader).await;
        // The pool first: it is the writing thread's turn, whose closing ends the thread.
        close_pool(&self.writer).await;
        self.writes.close().await;
        // Every write is in the file, not only in its WAL, even if a connection closed
        // above is still being let go of by sqlx's worker (the last connection's close
        // would fold it, but then it may not be the last): a copy of the file alone after
        // a shutdown holds every write.
        if let Err(error) = fold_wal(&self.file).await {
            tracing::warn!(%error, "could not fold the WAL into the database file at shutdown");
        }
    }
}

/// Copies every page of the WAL into the database file and empties the WAL, on a
/// connection of its own, closed after.
/// It waits for another process's readers and writer on the file at most 200 ms (their
/// writes would wait meanwhile); what it cannot fold then, that process's close folds.
async fn fold_wal(file: &SqliteConnectOptions) -> Result<(), sqlx::Error> {
    let mut connection = file
        .clone()
        .create_if_missing(false)
        .busy_timeout(Duration::from_millis(200))
        .connect()
        .await?;
    let folded = sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
        .fetch_one(&mut connection)
        .await;
    connection.close().await?;
    let busy: i64 = sqlx::Row::try_get(&folded?, 0)?;
    if busy != 0 {
        // Another process on the file was writing: its own close folds the rest.
        tracing::info!("the WAL could not be folded at shutdown: another process writes the file");
    }
    Ok(())
}

/// Closes `pool` until none of its connections is open, for at most two seconds.
/// sqlx's `close` can return while a connection given back at that moment is still open
/// and idle in the pool; SQLite folds the WAL into the database file only when the
/// process's last connection closes, so a copy of the file alone after a shutdown would
/// miss the latest writes.
pub(super) async fn close_pool(pool: &SqlitePool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    pool.close().await;
    while pool.size() > 0 && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
        pool.close().await;
    }
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
            .test_before_acquire(false)
            // Kept for the process's life: nothing is gained by opening it anew, and the
            // group-commit writer takes it as its turn on a write's path.
            .idle_timeout(None)
            .max_lifetime(None)
            .acquire_timeout(key_wait)
            .connect_with(options.clone())
            .await;
        match attempt {
            Err(error)
                if (crate::storage::is_busy(&error)
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

/// Finds the tags of notes written before tags existed (their `tags` is NULL).
async fn fill_in_tags(writer: &SqlitePool) -> anyhow::Result<()> {
    loop {
        let rows: Vec<(String, String, String, String)> =
            sqlx::query_as("SELECT id, scope, title, body FROM notes WHERE tags IS NULL LIMIT 500")
                .fetch_all(writer)
                .await?;
        if rows.is_empty() {
            return Ok(());
        }
        let mut tx = writer.begin().await?;
        for (id, scope, title, body) in rows {
            let tags = crate::text::tags::of_note(&title, &body);
            sqlx::query("UPDATE notes SET tags = ? WHERE id = ?")
                .bind(tags_column(&tags))
                .bind(&id)
                .execute(&mut *tx)
                .await?;
            for tag in tags {
                sqlx::query(
                    "INSERT INTO note_tags (scope, note_id, tag) VALUES (?, ?, ?) \
                     ON CONFLICT DO NOTHING",
                )
                .bind(&scope)
                .bind(&id)
                .bind(tag)
                .execute(&mut *tx)
                .await?;
            }
        }
        tx.commit().await?;
    }
}

/// Registers the search's rank function (`rank.rs`) on a read connection as it opens.
async fn with_rank(connection: &mut SqliteConnection) -> Result<(), sqlx::Error> {
    let mut handle = connection.lock_handle().await?;
    // SAFETY: the handle is open, and sqlx's worker waits while `handle` holds it.
    unsafe { rank::register(handle.as_raw_handle().as_ptr()) }
        .map_err(|reason| sqlx::Error::Configuration(reason.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `PRAGMA mmap_size` on one of `store`'s read connections.
    async fn readers_mmap_size(mmap_bytes: u64) -> i64 {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("m.db").display());
        let store = SqliteStore::open(&url, Duration::from_secs(5), 16, mmap_bytes, None)
            .await
            .unwrap();
        let size = sqlx::query_scalar("PRAGMA mmap_size")
            .fetch_one(&store.reader)
            .await
            .unwrap();
        store.close().await;
        size
    }

    #[tokio::test]
    async fn the_read_connections_map_as_much_of_the_file_as_configured_and_zero_maps_none() {
        assert_eq!(readers_mmap_size(256 << 20).await, 256 << 20);
        assert_eq!(readers_mmap_size(0).await, 0);
    }
}
