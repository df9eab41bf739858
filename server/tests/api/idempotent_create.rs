//! The server's side of exactly-once: one transaction per create, byte-identical replays,
//! concurrent requests with one key, rollback on failure, expiry.

use std::time::Duration;

use app::api::{
    ChangeKind, ChangesPage, IDEMPOTENT_REPLAYED_HEADER, Note, NotesPage, RevisionKind, SearchPage,
};
use sqlx::Executor;

use crate::helpers::{note_json, problem_of, spawn_app, spawn_app_with};
use crate::test_db::Backend;

#[tokio::test]
async fn a_first_create_answers_201_with_location_and_the_note() {
    let app = spawn_app().await;
    let response = app.post_note(Some("key-1"), &note_json("Groceries")).await;
    assert_eq!(response.status(), 201);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    assert!(response.headers().get(IDEMPOTENT_REPLAYED_HEADER).is_none());
    let note: Note = response.json().await.unwrap();
    assert_eq!(location, format!("/api/notes/{}", note.id));
    assert_eq!(note.title, "Groceries");
    assert_eq!(note.written_at, "2026-11-30T05:00:00.000Z");
    assert_eq!(note.version, 1);
}

/// Everything a create leaves, however the database makes it (PostgreSQL makes a create
/// under a new key in one statement, outside a transaction): the note with its tags and
/// search words, its first revision, the answer kept with the key, and its change.
#[tokio::test]
async fn a_create_leaves_its_tags_search_words_revision_kept_answer_and_change() {
    let app = spawn_app().await;
    let body = serde_json::json!({
        "title": "Lone", "body": "milk and eggs #errands #home",
        "written_at": "2026-11-30T05:00:00.000Z",
    });
    let made = app.post_note(Some("lone-key"), &body).await;
    assert_eq!(made.status(), 201);
    let made = made.bytes().await.unwrap();
    let note: Note = serde_json::from_slice(&made).unwrap();
    assert_eq!(note.tags, ["errands", "home"]);

    let tagged: NotesPage = app.get("/api/notes?tag=home").await.json().await.unwrap();
    assert_eq!(
        tagged.notes.iter().map(|n| &n.id).collect::<Vec<_>>(),
        [&note.id]
    );
    let found: SearchPage = app.get("/api/search?q=eggs").await.json().await.unwrap();
    assert_eq!(found.results.len(), 1);
    assert_eq!(found.results[0].note.id, note.id);
    let revisions = app.revisions(&note.id).await;
    assert_eq!(revisions.len(), 1);
    assert_eq!(
        (revisions[0].version, revisions[0].kind),
        (1, RevisionKind::Create)
    );
    let changes: ChangesPage = app.get("/api/changes?since=0").await.json().await.unwrap();
    assert_eq!(changes.changes.len(), 1);
    assert_eq!(changes.changes[0].note_id, note.id);
    assert_eq!(changes.changes[0].kind, ChangeKind::Upsert);
    assert_eq!(changes.next, changes.changes[0].seq);

    let again = app.post_note(Some("lone-key"), &body).await;
    assert_eq!(again.status(), 201);
    assert_eq!(again.headers()[IDEMPOTENT_REPLAYED_HEADER], "true");
    assert_eq!(again.bytes().await.unwrap(), made);
    assert_eq!((app.note_count().await, app.key_count().await), (1, 1));
    let second = app.create("Second", "more #home").await;
    let changes: ChangesPage = app.get("/api/changes?since=0").await.json().await.unwrap();
    assert_eq!(
        changes
            .changes
            .iter()
            .map(|c| c.note_id.as_str())
            .collect::<Vec<_>>(),
        [note.id.as_str(), second.id.as_str()],
        "the second create's change comes after the first's"
    );
}

#[tokio::test]
async fn a_repeated_key_replays_the_same_status_and_byte_identical_body() {
    let app = spawn_app().await;
    let first = app.post_note(Some("key-1"), &note_json("Groceries")).await;
    let first_status = first.status();
    let first_location = first.headers()["location"].clone();
    let first_body = first.bytes().await.unwrap();

    let again = app.post_note(Some("key-1"), &note_json("Groceries")).await;
    assert_eq!(again.status(), first_status);
    assert_eq!(again.headers()[IDEMPOTENT_REPLAYED_HEADER], "true");
    assert_eq!(again.headers()["location"], first_location);
    assert_eq!(again.bytes().await.unwrap(), first_body);
    assert_eq!(app.note_count().await, 1);
}

#[tokio::test]
async fn a_quoted_key_is_the_same_key_as_the_bare_one() {
    let app = spawn_app().await;
    assert_eq!(
        app.post_note(Some("abc"), &note_json("Groceries"))
            .await
            .status(),
        201
    );
    let quoted = app
        .post_note(Some("\"abc\""), &note_json("Groceries"))
        .await;
    assert_eq!(quoted.status(), 201);
    assert_eq!(quoted.headers()[IDEMPOTENT_REPLAYED_HEADER], "true");
    assert_eq!(app.note_count().await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thirty_two_concurrent_requests_with_one_key_store_one_note_and_get_identical_bodies() {
    let app = spawn_app().await;
    let body = note_json("Concurrent");
    let requests = (0..32).map(|_| async {
        let response = app.post_note(Some("the-one-key"), &body).await;
        (response.status().as_u16(), response.bytes().await.unwrap())
    });
    let answers = futures::future::join_all(requests).await;

    assert_eq!(app.note_count().await, 1);
    assert_eq!(app.key_count().await, 1);
    assert!(
        answers.iter().all(|(status, _)| *status == 201),
        "{:?}",
        answers.iter().map(|a| a.0).collect::<Vec<_>>()
    );
    assert!(
        answers.iter().all(|(_, body)| *body == answers[0].1),
        "every body is the first answer"
    );
}

#[tokio::test]
async fn a_failure_inside_the_transaction_after_the_note_insert_leaves_nothing_and_the_retry_succeeds()
 {
    let app = spawn_app().await;
    // Fail the transaction right after the note row is inserted (the claim, with its
    // answer, was written before it in the same transaction).
    app.db.fail_note_inserts(&app.pool).await;

    let failed = app.post_note(Some("key-1"), &note_json("Groceries")).await;
    assert_eq!(failed.status(), 500);
    let problem = problem_of(failed).await;
    assert!(
        !problem.detail.contains("injected"),
        "internal detail is not leaked: {}",
        problem.detail
    );
    assert_eq!(app.note_count().await, 0, "the note insert was rolled back");
    assert_eq!(app.key_count().await, 0, "the claim was rolled back");

    app.db.stop_failing_note_inserts(&app.pool).await;
    let retried = app.post_note(Some("key-1"), &note_json("Groceries")).await;
    assert_eq!(
        retried.status(),
        201,
        "a 5xx is never stored: the retry runs afresh"
    );
    assert!(retried.headers().get(IDEMPOTENT_REPLAYED_HEADER).is_none());
    assert_eq!(app.note_count().await, 1);
}

#[tokio::test]
async fn a_retry_after_the_idempotency_row_expired_gets_the_existing_note_with_200() {
    let app = spawn_app().await;
    let first: Note = app
        .post_note(Some("key-1"), &note_json("Groceries"))
        .await
        .json()
        .await
        .unwrap();
    sqlx::query("DELETE FROM idempotency_keys")
        .execute(&app.pool)
        .await
        .unwrap();

    let late = app.post_note(Some("key-1"), &note_json("Groceries")).await;
    assert_eq!(late.status(), 200);
    assert_eq!(late.headers()[IDEMPOTENT_REPLAYED_HEADER], "true");
    let note: Note = late.json().await.unwrap();
    assert_eq!(note.id, first.id);
    assert_eq!(app.note_count().await, 1);
}

#[tokio::test]
async fn an_expired_key_reused_with_another_payload_is_still_refused() {
    let app = spawn_app().await;
    app.post_note(Some("key-1"), &note_json("Groceries")).await;
    sqlx::query("DELETE FROM idempotency_keys")
        .execute(&app.pool)
        .await
        .unwrap();

    let reused = app.post_note(Some("key-1"), &note_json("Another")).await;
    assert_eq!(reused.status(), 422);
    assert_eq!(problem_of(reused).await.slug(), "idempotency-key-reused");
    assert_eq!(app.note_count().await, 1);
    assert_eq!(
        app.key_count().await,
        0,
        "nothing is written for the refusal"
    );
}

#[tokio::test]
async fn the_sweeper_deletes_expired_keys_and_the_note_still_answers_a_late_retry() {
    let app = spawn_app_with(|config| {
        config.idempotency_ttl = Duration::ZERO;
        config.sweep_interval = Duration::from_millis(100);
    })
    .await;
    app.post_note(Some("key-1"), &note_json("Groceries")).await;

    let mut waited = Duration::ZERO;
    while app.key_count().await > 0 {
        assert!(
            waited < Duration::from_secs(10),
            "the sweeper did not run in 10 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
        waited += Duration::from_millis(50);
    }
    assert_eq!(app.note_count().await, 1);
    let late = app.post_note(Some("key-1"), &note_json("Groceries")).await;
    assert_eq!(late.status(), 200);
    assert_eq!(app.note_count().await, 1);
}

/// Waits until the sweeper has deleted every idempotency row (their TTL is zero).
async fn wait_for_the_sweeper(app: &crate::helpers::TestApp) {
    let mut waited = Duration::ZERO;
    while app.key_count().await > 0 {
        assert!(
            waited < Duration::from_secs(10),
            "the sweeper did not run in 10 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
        waited += Duration::from_millis(50);
    }
}

#[tokio::test]
async fn a_key_used_for_an_edit_a_move_or_a_purge_then_expired_is_refused_for_a_create_with_422() {
    let app = spawn_app_with(|config| {
        config.idempotency_ttl = Duration::ZERO;
        config.sweep_interval = Duration::from_millis(100);
    })
    .await;
    let note = app.create("Plan", "one\n").await;
    let edit = serde_json::json!({ "title": "Plan", "body": "two\n", "base_version": 1,
        "written_at": "2026-11-30T05:00:00.000Z" });
    assert_eq!(
        app.patch_note(&note.id, "edit-key", &edit, &[])
            .await
            .status(),
        200
    );
    assert_eq!(
        app.delete_note(&note.id, "trash-key", false).await.status(),
        200
    );
    let gone = app.create("Gone", "three\n").await;
    assert_eq!(
        app.delete_note(&gone.id, "purge-key", true).await.status(),
        204
    );
    wait_for_the_sweeper(&app).await;
    let notes = app.note_count().await;

    for key in ["edit-key", "trash-key", "purge-key"] {
        let reused = app.post_note(Some(key), &note_json("Another")).await;
        assert_eq!(
            reused.status(),
            422,
            "a create under the {key} of another write"
        );
        assert_eq!(problem_of(reused).await.slug(), "idempotency-key-reused");
    }
    assert_eq!(app.note_count().await, notes, "nothing was written");
}

#[tokio::test]
async fn a_busy_database_is_503_database_busy_not_409_and_writes_nothing() {
    let app = spawn_app_with(|config| config.key_wait = Duration::from_millis(300)).await;
    // Another writer (a backup, another process) holds the write lock.
    let mut holder = app.db.hold_the_write_lock().await;

    let blocked = app.post_note(Some("key-1"), &note_json("Groceries")).await;
    assert_eq!(blocked.status(), 503);
    assert_eq!(blocked.headers()["retry-after"], "1");
    assert_eq!(problem_of(blocked).await.slug(), "database-busy");

    holder.execute("ROLLBACK").await.unwrap();
    assert_eq!(app.note_count().await, 0);
    let retried = app.post_note(Some("key-1"), &note_json("Groceries")).await;
    assert_eq!(retried.status(), 201);
}

/// Makes every note insert take a second or more, so a request can be held inside its
/// transaction.
async fn slow_down_note_inserts(app: &crate::helpers::TestApp) {
    app.db.slow_down_note_inserts(&app.pool).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_whose_key_is_in_flight_past_the_bound_gets_409_then_the_replay() {
    let app = spawn_app_with(|config| config.key_wait = Duration::from_millis(200)).await;
    slow_down_note_inserts(&app).await;
    let body = note_json("Held");
    let first = app.post_note(Some("held-key"), &body);
    let second = async {
        // Let the first request take the key and start its slow insert.
        tokio::time::sleep(Duration::from_millis(100)).await;
        let started = std::time::Instant::now();
        let response = app.post_note(Some("held-key"), &body).await;
        (response, started.elapsed())
    };
    let (first, (second, waited)) = tokio::join!(first, second);

    assert_eq!(first.status(), 201);
    assert_eq!(second.status(), 409, "the same key was in flight");
    assert_eq!(second.headers()["retry-after"], "1");
    assert!(
        waited < Duration::from_millis(900),
        "the follower gave up at the bound, not when the leader finished ({waited:?})"
    );
    assert_eq!(problem_of(second).await.slug(), "idempotency-key-in-use");
    let retry = app.post_note(Some("held-key"), &body).await;
    assert_eq!(retry.status(), 201);
    assert_eq!(retry.headers()[IDEMPOTENT_REPLAYED_HEADER], "true");
    assert_eq!(app.note_count().await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_and_replays_answer_while_writers_wait_for_the_write_lock() {
    let app = spawn_app_with(|config| config.key_wait = Duration::from_secs(3)).await;
    let stored = app
        .post_note(Some("stored-key"), &note_json("Stored"))
        .await;
    assert_eq!(stored.status(), 201);
    // Another writer holds the write lock: every write now waits up to 3 s.
    let mut holder = app.db.hold_the_write_lock().await;
    let writers: Vec<_> = (0..16)
        .map(|n| {
            let client = app.client.clone();
            let url = app.url("/api/notes");
            tokio::spawn(async move {
                client
                    .post(url)
                    .header("idempotency-key", format!("waiting-{n}"))
                    .json(&note_json("Waiting"))
                    .send()
                    .await
                    .map(|r| r.status().as_u16())
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(200)).await;

    let started = std::time::Instant::now();
    let health = app.get("/healthz").await;
    let replay = app
        .post_note(Some("stored-key"), &note_json("Stored"))
        .await;
    let page = app.get("/api/notes").await;
    let took = started.elapsed();
    assert_eq!(health.status(), 200);
    assert_eq!(replay.status(), 201);
    assert_eq!(replay.headers()[IDEMPOTENT_REPLAYED_HEADER], "true");
    assert_eq!(page.status(), 200);
    assert!(
        took < Duration::from_millis(1500),
        "reads waited behind the writers ({took:?}; the writers wait up to 3 s)"
    );

    holder.execute("ROLLBACK").await.unwrap();
    for writer in writers {
        let status = writer.await.unwrap().unwrap();
        assert!(status == 201 || status == 503, "{status}");
    }
}

#[tokio::test]
async fn the_database_fsyncs_every_commit_in_wal_mode() {
    let app = spawn_app().await;
    if app.db.backend == Backend::Postgres {
        // PostgreSQL: the server's connections ask for synchronous_commit=on; a test
        // connection cannot see another session's settings, so the server's own fsync
        // setting is what can be checked here.
        let fsync: String = sqlx::query_scalar("SELECT current_setting('fsync')")
            .fetch_one(&app.pool)
            .await
            .unwrap();
        assert_eq!(fsync, "on");
        return;
    }
    let synchronous: i64 = sqlx::query_scalar("PRAGMA synchronous")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    let journal: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(synchronous, 2, "synchronous=FULL");
    assert_eq!(journal, "wal");
}

/// Write transactions SQLite committed so far, as `/healthz` reports them.
async fn write_commits(app: &crate::helpers::TestApp) -> u64 {
    let health: serde_json::Value = app.get("/healthz").await.json().await.unwrap();
    health["write_commits"]
        .as_u64()
        .expect("SQLite reports its commits")
}

/// 64 creates sent together, on a server whose writes may share commits (`batch` 64) or
/// not (1): how many commits they took, after checking each is stored once.
async fn commits_for_64_creates_sent_together(batch: usize) -> u64 {
    let app = spawn_app_with(|config| config.write_batch = batch).await;
    let before = write_commits(&app).await;
    let requests = (0..64).map(|n| {
        let app = &app;
        async move {
            app.post_note(
                Some(&format!("together-{n}")),
                &note_json(&format!("Together {n}")),
            )
            .await
            .status()
            .as_u16()
        }
    });
    let statuses = futures::future::join_all(requests).await;
    assert!(statuses.iter().all(|s| *s == 201), "{statuses:?}");
    assert_eq!(app.note_count().await, 64);
    assert_eq!(app.key_count().await, 64);
    write_commits(&app).await - before
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creates_sent_together_share_commits_on_sqlite_and_each_is_stored_once() {
    if crate::test_db::backend() == Backend::Postgres {
        // Skipped on PostgreSQL on purpose: group commit is the SQLite writer's (each
        // PostgreSQL write commits in its own transaction, on any replica), and only SQLite
        // reports `write_commits` to count. The SQLite pass of the suite runs it.
        return;
    }
    let grouped = commits_for_64_creates_sent_together(64).await;
    let alone = commits_for_64_creates_sent_together(1).await;
    assert_eq!(
        alone, 64,
        "ONCENOTE_WRITE_BATCH=1 commits every write on its own"
    );
    assert!(
        grouped < 64,
        "64 creates sent together took {grouped} commits: none were shared"
    );
}
