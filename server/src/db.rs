//! Opening the database: SQLite tuned so an acknowledged save survives a crash or a
//! power loss, and the embedded migrations run before the first request.

use std::str::FromStr;
use std::time::Duration;

use anyhow::Context;
use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

/// Opens (creating if needed) the SQLite database at `url` and migrates it.
///
/// - WAL lets readers run beside the one writer.
/// - `synchronous=FULL` fsyncs the WAL at every commit: a 201 is only sent for a save
///   that is on disk. (NORMAL would be faster and could lose the last saves on power loss.)
/// - The busy timeout is how long a writer waits for the write lock; a request with the
///   same key as a running one waits here, then replays its answer.
pub async fn open(url: &str, busy_timeout: Duration) -> anyhow::Result<SqlitePool> {
    let options = SqliteConnectOptions::from_str(url)
        .with_context(|| format!("DATABASE_URL {url:?} is not a valid sqlite: URL"))?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Full)
        .foreign_keys(true)
        .busy_timeout(busy_timeout);
    if let Some(parent) = options.get_filename().parent()
        && !parent.as_os_str().is_empty()
    {
        std::fs::create_dir_all(parent).with_context(|| {
            format!("could not create the database folder {}", parent.display())
        })?;
    }
    let pool = SqlitePoolOptions::new()
        .max_connections(8)
        .acquire_timeout(Duration::from_secs(10))
        .connect_with(options)
        .await
        .with_context(|| format!("could not open the database at {url}"))?;
    sqlx::migrate!("../migrations")
        .run(&pool)
        .await
        .context("could not apply the database migrations")?;
    Ok(pool)
}
