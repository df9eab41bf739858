//! When the database cannot take a write — its disk is full, or it crashed — every route
//! says so with a status the client waits out (507 / 503 with `Retry-After`), never a
//! 500; `/healthz` says so too; and the same keys store each write once afterwards.

use std::time::Duration;

use server::config::DatabaseUrl;

use crate::db_proxy::DbProxy;
use crate::helpers::{TestApp, note_json, problem_of, spawn_app_with};
use crate::test_db::Backend;

/// The SQLite database's size cap in pages (4 KiB each) for the full-disk test.
const PAGES: u32 = 1_000;

/// A note of about 20 KB, as in the report.
fn big_note(title: &str) -> serde_json::Value {
    serde_json::json!({ "title": title, "body": "x".repeat(20_000), "written_at": "2026-11-30T05:00:00.000Z" })
}

/// Grows the database to its page cap with rows of the test's own (its connection has no
/// cap), so the app's next write that needs a page meets a real SQLITE_FULL.
pub async fn fill_the_disk(app: &TestApp, pages: u32) {
    sqlx::query("CREATE TABLE filler (b BLOB)")
        .execute(&app.pool)
        .await
        .unwrap();
    loop {
        let pages_now: i64 = sqlx::query_scalar("SELECT page_count FROM pragma_page_count()")
            .fetch_one(&app.pool)
            .await
            .unwrap();
        if pages_now >= i64::from(pages) {
            break;
        }
        sqlx::query("INSERT INTO filler (b) VALUES (zeroblob(100000))")
            .execute(&app.pool)
            .await
            .unwrap();
    }
}

async fn health(app: &TestApp) -> (u16, serde_json::Value) {
    let response = reqwest::get(app.url("/healthz")).await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

#[tokio::test]
async fn a_full_disk_is_507_storage_full_with_retry_after_healthz_says_so_and_the_same_keys_store_once_room_returns()
 {
    if crate::test_db::backend() != Backend::Sqlite {
        // PostgreSQL's `disk_full` (53100) cannot be made here; the server's unit tests
        // read it as the same class.
        return;
    }
    let app = spawn_app_with(|config| config.sqlite_max_pages = Some(PAGES)).await;
    let kept = app.create("Written before", "the disk filled").await;
    fill_the_disk(&app, PAGES).await;

    for n in 0..3 {
        let refused = app
            .post_note(Some(&format!("full-{n}")), &big_note(&format!("Note {n}")))
            .await;
        assert_eq!(refused.status(), 507, "write {n} on a full disk");
        assert_eq!(refused.headers()["retry-after"], "30");
        let problem = problem_of(refused).await;
        assert_eq!(problem.slug(), "storage-full");
        assert!(
            problem.detail.contains("disk is full"),
            "{}",
            problem.detail
        );
    }
    // Reads and session lookups still work; health tells the operator writes do not.
    assert_eq!(
        app.get(&format!("/api/notes/{}", kept.id)).await.status(),
        200
    );
    let (status, body) = health(&app).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["status"], "storage-full");
    assert_eq!(
        app.note_count().await,
        1,
        "nothing of the refused writes was kept"
    );

    // The operator makes room.
    sqlx::query("DELETE FROM filler")
        .execute(&app.pool)
        .await
        .unwrap();
    for n in 0..3 {
        let stored = app
            .post_note(Some(&format!("full-{n}")), &big_note(&format!("Note {n}")))
            .await;
        assert_eq!(stored.status(), 201, "write {n} once there is room");
    }
    let replayed = app.post_note(Some("full-0"), &big_note("Note 0")).await;
    assert_eq!(replayed.headers()["idempotent-replayed"], "true");
    assert_eq!(app.note_count().await, 4, "each note stored once");
    let (status, body) = health(&app).await;
    assert_eq!((status, &body["status"]), (200, &"ok".into()), "{body}");
}

/// The app on PostgreSQL behind a proxy the test can crash; `None` on SQLite.
async fn app_behind_a_proxy() -> Option<(TestApp, DbProxy)> {
    if crate::test_db::backend() != Backend::Postgres {
        return None;
    }
    let db = crate::test_db::TestDb::new().await;
    let proxy = DbProxy::start(&db.url).await;
    let proxied = proxy.url(&db.url);
    let app = crate::helpers::spawn_app_on(db, |config| {
        config.database = DatabaseUrl::parse(&proxied).unwrap();
        config.db_connect_timeout = Duration::from_secs(1);
    })
    .await;
    Some((app, proxy))
}

/// Asserts a 503 `database-unavailable` with `Retry-After`.
async fn assert_unavailable(response: reqwest::Response, what: &str) {
    assert_eq!(response.status(), 503, "{what}");
    assert_eq!(response.headers()["retry-after"], "2", "{what}");
    assert_eq!(
        problem_of(response).await.slug(),
        "database-unavailable",
        "{what}"
    );
}

/// Runs `request` while the test holds `lock` (so the request is inside its query), then
/// crashes the database under it.
async fn crash_under<F: std::future::IntoFuture<Output = reqwest::Response>>(
    app: &TestApp,
    proxy: &DbProxy,
    lock: &str,
    request: F,
) -> reqwest::Response
where
    F::IntoFuture: Send + 'static,
{
    use sqlx::{Connection, Executor};
    let mut holder = sqlx::AnyConnection::connect(&app.db.url).await.unwrap();
    holder.execute("BEGIN").await.unwrap();
    holder.execute(lock).await.unwrap();
    let running = tokio::spawn(request.into_future());
    tokio::time::sleep(Duration::from_millis(500)).await;
    proxy.crash();
    let answer = running.await.unwrap();
    holder.execute("ROLLBACK").await.unwrap();
    proxy.restart().await;
    answer
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_crash_under_a_session_lookup_a_read_or_a_write_is_503_database_unavailable_never_500()
 {
    let Some((app, proxy)) = app_behind_a_proxy().await else {
        return;
    };
    let note = app.create("Before the crash", "kept").await;

    // The session lookup before any route: it waits on the sessions table when the
    // connection goes.
    let lookup = app.client.get(app.url("/api/notes")).send();
    let answer = crash_under(
        &app,
        &proxy,
        "LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE",
        async { lookup.await.unwrap() },
    )
    .await;
    assert_unavailable(answer, "a session lookup cut off").await;

    // A read, past the session lookup, waiting on the notes.
    let read = app
        .client
        .get(app.url(&format!("/api/notes/{}", note.id)))
        .send();
    let answer = crash_under(
        &app,
        &proxy,
        "LOCK TABLE notes IN ACCESS EXCLUSIVE MODE",
        async { read.await.unwrap() },
    )
    .await;
    assert_unavailable(answer, "a read cut off").await;

    // A write inside its transaction.
    let write = app
        .client
        .post(app.url("/api/notes"))
        .header("Idempotency-Key", "crash-key")
        .json(&note_json("During the crash"))
        .send();
    let answer = crash_under(&app, &proxy, "LOCK TABLE notes IN EXCLUSIVE MODE", async {
        write.await.unwrap()
    })
    .await;
    assert_unavailable(answer, "a write cut off").await;

    // While the server is down: no connection can be had at all.
    proxy.crash();
    assert_unavailable(app.get("/api/notes").await, "a request while down").await;
    assert_unavailable(
        app.post_note(Some("crash-key"), &note_json("During the crash"))
            .await,
        "a write while down",
    )
    .await;
    let (status, _) = health(&app).await;
    assert_eq!(status, 503, "health while down");

    // Restarted: the same key stores the note once.
    proxy.restart().await;
    let stored = app
        .post_note(Some("crash-key"), &note_json("During the crash"))
        .await;
    assert_eq!(stored.status(), 201);
    assert_eq!(app.note_count().await, 2);
    let (status, body) = health(&app).await;
    assert_eq!(status, 200, "{body}");
}
