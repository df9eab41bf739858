//! Two server processes on one database, as behind a reverse proxy with two replicas: every
//! promise holds across them. These run on both backends (two processes may share one
//! SQLite file as well); on PostgreSQL they are the point of the deployment.

use std::time::Duration;

use app::api::{EditAnswer, EditOutcome, IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER};
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::helpers::{anonymous, note_json, spawn_app, spawn_app_with};
use crate::test_db::TestDb;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixty_four_requests_with_one_key_over_two_replicas_make_one_note_and_one_answer() {
    let a = spawn_app().await;
    let b = a.replica_with(|_| {}).await;
    let body = note_json("Over two replicas");
    let sends = (0..64).map(|n| {
        let url = if n % 2 == 0 {
            a.url("/api/notes")
        } else {
            b.url("/api/notes")
        };
        a.client
            .post(url)
            .header(IDEMPOTENCY_KEY_HEADER, "one-key-two-replicas")
            .json(&body)
            .send()
    });
    let answers = futures::future::join_all(sends).await;
    let mut bodies = Vec::new();
    for answer in answers {
        let answer = answer.expect("an answer");
        let status = answer.status().as_u16();
        // 409: the key was still in flight past the bound; 503 the same, told by a
        // create made in one statement (which cannot tell what it waited for). The client
        // retries either with the same key.
        assert!(status == 201 || status == 409 || status == 503, "{status}");
        if status == 201 {
            bodies.push(answer.bytes().await.unwrap());
        }
    }
    assert!(!bodies.is_empty());
    assert!(
        bodies.iter().all(|b| *b == bodies[0]),
        "every 201 is the same answer"
    );
    assert_eq!(a.note_count().await, 1);
    assert_eq!(a.key_count().await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_retry_sent_to_another_replica_while_the_first_is_writing_gets_the_first_answer() {
    // B reads the key before A has committed (nothing there) and reaches the write after
    // A's commit: it must not write again, and must answer what A answered. (Both wait for
    // the write lock as long as A's slowed insert takes.)
    let wait = |config: &mut server::config::Config| config.key_wait = Duration::from_secs(60);
    let a = spawn_app_with(wait).await;
    let b = a.replica_with(wait).await;
    a.db.slow_down_note_inserts(&a.pool).await;
    let body = note_json("Written on A, retried on B");
    let first = {
        let (client, url, body) = (a.client.clone(), a.url("/api/notes"), body.clone());
        tokio::spawn(async move {
            client
                .post(url)
                .header(IDEMPOTENCY_KEY_HEADER, "retried-elsewhere")
                .json(&body)
                .send()
                .await
                .unwrap()
        })
    };
    // A is inside its slow insert, holding the write.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let retry = a
        .client
        .post(b.url("/api/notes"))
        .header(IDEMPOTENCY_KEY_HEADER, "retried-elsewhere")
        .json(&body)
        .send()
        .await
        .unwrap();
    let first = first.await.unwrap();
    assert_eq!(first.status(), 201);
    assert_eq!(
        retry.status(),
        201,
        "the retry is told the first write's answer"
    );
    assert_eq!(retry.headers()[IDEMPOTENT_REPLAYED_HEADER], "true");
    assert_eq!(retry.bytes().await.unwrap(), first.bytes().await.unwrap());
    assert_eq!(a.note_count().await, 1);
    assert_eq!(a.key_count().await, 1);
}

#[tokio::test]
async fn an_answer_lost_from_one_replica_is_replayed_by_the_other() {
    let a = spawn_app().await;
    let b = a.replica_with(|_| {}).await;
    let body = note_json("Answer lost");
    // Replica A commits; its answer never reaches the client.
    let first = a.post_note(Some("lost-on-a"), &body).await;
    assert_eq!(first.status(), 201);
    let first = first.bytes().await.unwrap();
    // The retry goes to replica B.
    let retry = a
        .client
        .post(b.url("/api/notes"))
        .header(IDEMPOTENCY_KEY_HEADER, "lost-on-a")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(retry.status(), 201);
    assert_eq!(retry.headers()[IDEMPOTENT_REPLAYED_HEADER], "true");
    assert_eq!(retry.bytes().await.unwrap(), first);
    assert_eq!(a.note_count().await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_replicas_editing_one_note_merge_or_keep_a_copy_and_lose_no_text() {
    let a = spawn_app().await;
    let b = a.replica_with(|_| {}).await;
    for round in 0..8 {
        let note = a.create("Plan", "one\ntwo\nthree\n").await;
        // Different lines from the same version, at the same moment, on two replicas.
        let edit = |body: &str| json!({ "title": "Plan", "body": body, "base_version": 1, "written_at": "2026-11-30T06:00:00.000Z" });
        let on_a = a
            .client
            .patch(a.url(&format!("/api/notes/{}", note.id)))
            .header(IDEMPOTENCY_KEY_HEADER, format!("a-{round}"))
            .json(&edit("ONE\ntwo\nthree\n"));
        let on_b = a
            .client
            .patch(b.url(&format!("/api/notes/{}", note.id)))
            .header(IDEMPOTENCY_KEY_HEADER, format!("b-{round}"))
            .json(&edit("one\ntwo\nTHREE\n"));
        let (on_a, on_b) = tokio::join!(on_a.send(), on_b.send());
        let answers: Vec<EditAnswer> = vec![
            on_a.unwrap().json().await.unwrap(),
            on_b.unwrap().json().await.unwrap(),
        ];
        let outcomes: Vec<EditOutcome> = answers.iter().map(|a| a.outcome).collect();
        assert!(
            outcomes.contains(&EditOutcome::Applied) && outcomes.contains(&EditOutcome::Merged),
            "one applied, the other merged: {outcomes:?}"
        );
        let now = a.note(&note.id).await;
        assert_eq!(now.body, "ONE\ntwo\nTHREE\n", "both edits are in the note");
        assert_eq!(now.version, 3);
        assert_eq!(a.revisions(&note.id).await.len(), 3);

        // The same line on both: one applied, the other kept as a conflict copy.
        let same = |body: &str| json!({ "title": "Plan", "body": body, "base_version": 3, "written_at": "2026-11-30T06:00:00.000Z" });
        let on_a = a
            .client
            .patch(a.url(&format!("/api/notes/{}", note.id)))
            .header(IDEMPOTENCY_KEY_HEADER, format!("a2-{round}"))
            .json(&same("ONE\nA\nTHREE\n"));
        let on_b = a
            .client
            .patch(b.url(&format!("/api/notes/{}", note.id)))
            .header(IDEMPOTENCY_KEY_HEADER, format!("b2-{round}"))
            .json(&same("ONE\nB\nTHREE\n"));
        let (on_a, on_b) = tokio::join!(on_a.send(), on_b.send());
        let answers: Vec<EditAnswer> = vec![
            on_a.unwrap().json().await.unwrap(),
            on_b.unwrap().json().await.unwrap(),
        ];
        let copies: Vec<_> = answers.iter().filter_map(|a| a.copy.clone()).collect();
        assert_eq!(copies.len(), 1, "exactly one conflict copy");
        let kept = a.note(&note.id).await.body;
        let texts = [kept.as_str(), copies[0].body.as_str()];
        assert!(
            texts.contains(&"ONE\nA\nTHREE\n") && texts.contains(&"ONE\nB\nTHREE\n"),
            "{texts:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixteen_first_admin_setups_over_two_replicas_make_one_admin() {
    let a = spawn_app_with(|c| c.admin = None).await;
    let b = a.replica_with(|_| {}).await;
    let token = "a-setup-token";
    sqlx::query(
        "INSERT INTO setup_tokens (token_hash, created_at) VALUES ($1, '2026-11-30T05:00:00Z')",
    )
    .bind(hex::encode(Sha256::digest(token.as_bytes())))
    .execute(&a.pool)
    .await
    .unwrap();
    let setups = (0..16).map(|n| {
        let url = if n % 2 == 0 { a.url("/api/setup") } else { b.url("/api/setup") };
        anonymous()
            .post(url)
            .json(&json!({ "token": token, "username": format!("admin{n}"), "password": "a long password" }))
            .send()
    });
    let statuses: Vec<u16> = futures::future::join_all(setups)
        .await
        .into_iter()
        .map(|r| r.unwrap().status().as_u16())
        .collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        1,
        "{statuses:?}"
    );
    let admins: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM users WHERE is_admin")
        .fetch_one(&a.pool)
        .await
        .unwrap();
    let users: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM users")
        .fetch_one(&a.pool)
        .await
        .unwrap();
    assert_eq!((admins, users), (1, 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn replicas_starting_together_on_a_new_database_migrate_it_once_without_error() {
    let db = TestDb::unmigrated(crate::test_db::backend()).await;
    let starts = (0..3).map(|_| {
        let config = server::config::Config::for_tests(db.url.clone());
        server::startup::Application::build(config)
    });
    for started in futures::future::join_all(starts).await {
        started.expect("every replica starts");
    }
    let pool = db.pool().await;
    let migrations: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM _sqlx_migrations")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(migrations >= 1);
}

/// Sends one write to replica A, then its retry with the same key to replica B, which has
/// never seen the key: B must give A's answer, marked a replay, and write nothing.
async fn retried_on_the_other_replica(
    a: &crate::helpers::TestApp,
    b: &crate::helpers::Replica,
    method: reqwest::Method,
    path: &str,
    key: &str,
    body: serde_json::Value,
) -> serde_json::Value {
    let send = |base: &str| {
        a.client
            .request(method.clone(), format!("{base}{path}"))
            .header(IDEMPOTENCY_KEY_HEADER, key)
            .json(&body)
            .send()
    };
    let first = send(&a.address).await.unwrap();
    let status = first.status();
    assert!(status.is_success(), "{method} {path}: {status}");
    let first = first.bytes().await.unwrap();
    let counts = (
        a.note_count().await,
        a.revision_count().await,
        a.key_count().await,
    );
    let retry = send(&b.address).await.unwrap();
    assert_eq!(retry.status(), status, "{method} {path}");
    assert_eq!(
        retry.headers()[IDEMPOTENT_REPLAYED_HEADER],
        "true",
        "{method} {path}"
    );
    assert_eq!(retry.bytes().await.unwrap(), first, "{method} {path}");
    assert_eq!(
        (
            a.note_count().await,
            a.revision_count().await,
            a.key_count().await
        ),
        counts,
        "{method} {path}: the retry wrote nothing"
    );
    serde_json::from_slice(&first).unwrap_or(serde_json::Value::Null)
}

#[tokio::test]
async fn every_write_kind_retried_on_the_replica_that_never_saw_its_key_replays_and_writes_nothing()
{
    use reqwest::Method;
    let a = spawn_app().await;
    let b = a.replica_with(|_| {}).await;
    let at = "2026-12-05T06:00:00.000Z";
    let created = retried_on_the_other_replica(
        &a,
        &b,
        Method::POST,
        "/api/notes",
        "kind-create",
        json!({ "title": "Every kind", "body": "- [ ] one #work", "written_at": at }),
    )
    .await;
    let id = created["id"].as_str().expect("the note's id").to_owned();
    let note = format!("/api/notes/{id}");
    let writes = [
        (
            Method::PATCH,
            note.clone(),
            "kind-edit",
            json!({ "title": "Every kind", "body": "- [x] one #work", "base_version": 1, "written_at": at }),
        ),
        (
            Method::PATCH,
            note.clone(),
            "kind-pin",
            json!({ "pinned": true, "written_at": at }),
        ),
        (
            Method::POST,
            "/api/tags/rename".to_owned(),
            "kind-rename",
            json!({ "from": "work", "to": "job", "written_at": at }),
        ),
        (Method::DELETE, note.clone(), "kind-trash", json!({})),
        (
            Method::POST,
            format!("{note}/restore"),
            "kind-restore",
            json!({}),
        ),
        (
            Method::DELETE,
            format!("{note}?permanent=true"),
            "kind-purge",
            json!({}),
        ),
    ];
    for (method, path, key, body) in writes {
        retried_on_the_other_replica(&a, &b, method, &path, key, body).await;
    }
    assert_eq!(a.note_count().await, 0, "purged once");
}
