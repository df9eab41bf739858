//! An online backup of a SQLite database: `VACUUM INTO` writes a consistent copy of the
//! database as of one moment (a read transaction), while the server keeps serving. The
//! files in notes live in the database (`files`, `file_chunks`), so the copy holds them
//! too, consistent with the notes that refer to them.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use anyhow::{Context, bail};
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection};

/// What a backup holds, read back from the copy itself.
#[derive(Debug)]
pub struct BackupReport {
    pub bytes: u64,
    pub users: i64,
    pub notes: i64,
    pub revisions: i64,
    /// Files in notes, and the bytes their chunks hold (checked against their sizes).
    pub files: i64,
    pub file_bytes: i64,
}

/// Copies the database at `url` to `to`, which must not exist yet, and checks the copy.
pub async fn backup(url: &str, to: &Path) -> anyhow::Result<BackupReport> {
    if to.exists() {
        bail!(
            "{} exists already; a backup never overwrites a file",
            to.display()
        );
    }
    let source = SqliteConnectOptions::from_str(url)
        .with_context(|| format!("DATABASE_URL {url:?} is not a valid sqlite: URL"))?
        .create_if_missing(false)
        .busy_timeout(Duration::from_secs(30));
    let mut connection = source
        .connect()
        .await
        .with_context(|| format!("could not open the database at {url}"))?;
    let target = to
        .to_str()
        .with_context(|| format!("{} is not a UTF-8 path", to.display()))?;
    sqlx::query("VACUUM INTO ?")
        .bind(target)
        .execute(&mut connection)
        .await
        .with_context(|| format!("could not write the backup to {}", to.display()))?;
    connection.close().await?;

    let mut copy = SqliteConnectOptions::new()
        .filename(to)
        .read_only(true)
        .connect()
        .await
        .context("could not open the backup to check it")?;
    let integrity: String = sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_one(&mut copy)
        .await?;
    if integrity != "ok" {
        bail!(
            "the backup at {} fails its integrity check: {integrity}",
            to.display()
        );
    }
    let count = |table: &'static str| format!("SELECT count(*) FROM {table}");
    let users = sqlx::query_scalar(&count("users"))
        .fetch_one(&mut copy)
        .await?;
    let notes = sqlx::query_scalar(&count("notes"))
        .fetch_one(&mut copy)
        .await?;
    let revisions = sqlx::query_scalar(&count("revisions"))
        .fetch_one(&mut copy)
        .await?;
    let files = sqlx::query_scalar(&count("files"))
        .fetch_one(&mut copy)
        .await?;
    let (file_bytes, sizes): (i64, i64) = sqlx::query_as(
        "SELECT (SELECT COALESCE(SUM(length(bytes)), 0) FROM file_chunks), \
         (SELECT COALESCE(SUM(size), 0) FROM files)",
    )
    .fetch_one(&mut copy)
    .await?;
    if file_bytes != sizes {
        bail!(
            "the backup at {} holds {file_bytes} bytes of files where their sizes add up to {sizes}",
            to.display()
        );
    }
    copy.close().await?;
    Ok(BackupReport {
        bytes: std::fs::metadata(to)?.len(),
        users,
        notes,
        revisions,
        files,
        file_bytes,
    })
}
