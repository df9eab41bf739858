//! The disk's durable commit rate: the ceiling a server committing each write on its own
//! could reach, and what group commit must beat.

use std::path::Path;
use std::time::{Duration, Instant};

use sqlx::Connection;
use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqliteSynchronous};

/// Sequential single-row insert transactions with the server's durability settings, for
/// at most `for_at_most` (and 20,000 commits); commits per second.
pub async fn commit_rate(path: &Path, for_at_most: Duration) -> anyhow::Result<f64> {
    let options = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Full);
    let mut conn = SqliteConnection::connect_with(&options).await?;
    sqlx::query("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)")
        .execute(&mut conn)
        .await?;
    let started = Instant::now();
    let mut commits = 0u64;
    while started.elapsed() < for_at_most && commits < 20_000 {
        sqlx::query("INSERT INTO t (v) VALUES (?)")
            .bind("a row of about the size of a note")
            .execute(&mut conn)
            .await?;
        commits += 1;
    }
    Ok(commits as f64 / started.elapsed().as_secs_f64())
}
