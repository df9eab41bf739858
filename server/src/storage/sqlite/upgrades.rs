//! Upgrades, tested: a database made by the migrations before one, given rows as the
//! earlier version wrote them, then opened by this version (which runs the rest).

use sqlx::{Connection, SqliteConnection};

use super::SqliteStore;

/// A new database at `url` migrated up to, but not including, `version`; the test's own
/// connection to it.
pub(super) async fn migrated_before(url: &str, version: i64) -> SqliteConnection {
    let mut connection = SqliteConnection::connect(&format!("{url}?mode=rwc"))
        .await
        .unwrap();
    let folder = tempfile::tempdir().unwrap();
    let all = concat!(env!("CARGO_MANIFEST_DIR"), "/../migrations/sqlite");
    let mut copied = 0;
    for file in std::fs::read_dir(all).unwrap() {
        let path = file.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let at: i64 = name.split('_').next().unwrap().parse().unwrap();
        if at < version {
            std::fs::copy(&path, folder.path().join(&name)).unwrap();
            copied += 1;
        }
    }
    let earlier = sqlx::migrate::Migrator::new(folder.path()).await.unwrap();
    assert_eq!(earlier.iter().count(), copied);
    assert!(
        std::fs::read_dir(all).unwrap().count() > copied,
        "the migration {version} is there"
    );
    earlier.run(&mut connection).await.unwrap();
    connection
}

/// This version's store on the database at `url` (it runs the migrations left).
pub(super) async fn opened(url: &str) -> SqliteStore {
    SqliteStore::open(url, std::time::Duration::from_secs(5), 16, 0, None)
        .await
        .unwrap()
}

#[tokio::test]
async fn the_upgrade_counts_each_person_s_files_again_at_four_kib_at_least() {
    const FILES_COST_4_KIB: i64 = 20261231000002;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("files.db").display());
    let mut before = migrated_before(&url, FILES_COST_4_KIB).await;
    // As the earlier version counted them: their bytes. Ann: three 3-byte files and one
    // of 10,000 bytes; Bea: one of 5,000; Cat's usage row is left with no file.
    for (scope, sha, size) in [
        ("ann", "a1", 3),
        ("ann", "a2", 3),
        ("ann", "a3", 3),
        ("ann", "a4", 10_000),
        ("bea", "b1", 5_000),
    ] {
        sqlx::query(
            "INSERT INTO files (scope, sha256, size, content_type, created_at, last_seen_at) \
             VALUES (?, ?, ?, 'application/octet-stream', 't', 't')",
        )
        .bind(scope)
        .bind(sha)
        .bind(size)
        .execute(&mut before)
        .await
        .unwrap();
    }
    for (scope, used) in [("ann", 10_009), ("bea", 5_000), ("cat", 0)] {
        sqlx::query("INSERT INTO file_usage (scope, used_bytes) VALUES (?, ?)")
            .bind(scope)
            .bind(used)
            .execute(&mut before)
            .await
            .unwrap();
    }
    let store = opened(&url).await;
    let usage: Vec<(String, i64)> =
        sqlx::query_as("SELECT scope, used_bytes FROM file_usage ORDER BY scope")
            .fetch_all(&mut before)
            .await
            .unwrap();
    assert_eq!(
        usage,
        [
            ("ann".to_owned(), 3 * 4096 + 10_000),
            ("bea".to_owned(), 5_000),
            ("cat".to_owned(), 0)
        ]
    );
    store.close().await;
}
