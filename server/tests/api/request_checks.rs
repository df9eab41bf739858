//! Checks that run before any write, in the protocol's order; none of them uses up the key.

use app::api::MAX_REQUEST_BYTES;

use crate::helpers::{note_json, problem_of, spawn_app};

#[tokio::test]
async fn a_missing_key_is_400_and_nothing_is_written() {
    let app = spawn_app().await;
    let response = app.post_note(None, &note_json("Groceries")).await;
    assert_eq!(response.status(), 400);
    assert_eq!(problem_of(response).await.slug(), "missing-idempotency-key");
    assert_eq!((app.note_count().await, app.key_count().await), (0, 0));
}

#[tokio::test]
async fn a_malformed_key_is_400_and_nothing_is_written() {
    let app = spawn_app().await;
    for bad in ["", "has space", "\"unterminated", &"k".repeat(256)] {
        let response = app.post_note(Some(bad), &note_json("Groceries")).await;
        assert_eq!(response.status(), 400, "key {bad:?}");
        assert_eq!(
            problem_of(response).await.slug(),
            "invalid-idempotency-key",
            "key {bad:?}"
        );
    }
    assert_eq!((app.note_count().await, app.key_count().await), (0, 0));
}

#[tokio::test]
async fn two_key_headers_are_400() {
    let app = spawn_app().await;
    let response = app
        .post_raw(
            &[
                ("content-type", "application/json"),
                ("idempotency-key", "a"),
                ("idempotency-key", "b"),
            ],
            note_json("Groceries").to_string(),
        )
        .await;
    assert_eq!(response.status(), 400);
    assert_eq!(problem_of(response).await.slug(), "invalid-idempotency-key");
}

#[tokio::test]
async fn a_body_over_the_byte_limit_is_413_before_the_key_is_even_read() {
    let app = spawn_app().await;
    let response = app
        .post_raw(
            &[("content-type", "application/json")],
            vec![b' '; MAX_REQUEST_BYTES + 1],
        )
        .await;
    assert_eq!(response.status(), 413);
    assert_eq!(problem_of(response).await.slug(), "payload-too-large");
}

#[tokio::test]
async fn a_body_of_exactly_the_byte_limit_is_read() {
    let app = spawn_app().await;
    let mut body = note_json("Groceries").to_string().into_bytes();
    body.resize(MAX_REQUEST_BYTES, b' ');
    let response = app
        .post_raw(
            &[
                ("content-type", "application/json"),
                ("idempotency-key", "k"),
            ],
            body,
        )
        .await;
    assert_eq!(response.status(), 201);
}

#[tokio::test]
async fn a_missing_key_is_reported_before_bad_json() {
    let app = spawn_app().await;
    let response = app
        .post_raw(&[("content-type", "application/json")], "{not json")
        .await;
    assert_eq!(problem_of(response).await.slug(), "missing-idempotency-key");
}

#[tokio::test]
async fn bad_json_and_wrong_shapes_are_400_and_use_up_no_key() {
    let app = spawn_app().await;
    let bodies = [
        "{not json".to_owned(),
        r#"{"title": "t", "body": "b"}"#.to_owned(),
        r#"{"title": 5, "body": "b", "written_at": "2026-11-30T05:00:00Z"}"#.to_owned(),
        "[]".to_owned(),
    ];
    for body in bodies {
        let response = app
            .post_raw(
                &[
                    ("content-type", "application/json"),
                    ("idempotency-key", "k"),
                ],
                body.clone(),
            )
            .await;
        assert_eq!(response.status(), 400, "{body}");
        assert_eq!(problem_of(response).await.slug(), "invalid-json", "{body}");
    }
    assert_eq!(app.key_count().await, 0);
    // The key is still unused: a good request with it creates the note.
    assert_eq!(
        app.post_note(Some("k"), &note_json("Groceries"))
            .await
            .status(),
        201
    );
}

#[tokio::test]
async fn a_body_not_declared_as_json_is_415() {
    let app = spawn_app().await;
    let response = app
        .post_raw(
            &[("content-type", "text/plain"), ("idempotency-key", "k")],
            note_json("t").to_string(),
        )
        .await;
    assert_eq!(response.status(), 415);
    assert_eq!(problem_of(response).await.slug(), "unsupported-media-type");
}

#[tokio::test]
async fn titles_and_bodies_out_of_bounds_are_422_and_write_nothing() {
    let app = spawn_app().await;
    let cases = [
        serde_json::json!({ "title": "   ", "body": "", "written_at": "2026-11-30T05:00:00Z" }),
        serde_json::json!({ "title": "t".repeat(201), "body": "", "written_at": "2026-11-30T05:00:00Z" }),
        serde_json::json!({ "title": "t", "body": "b".repeat(100_001), "written_at": "2026-11-30T05:00:00Z" }),
        serde_json::json!({ "title": "t", "body": "", "written_at": "tomorrow" }),
    ];
    for case in cases {
        let response = app.post_note(Some("k"), &case).await;
        assert_eq!(response.status(), 422);
        assert_eq!(problem_of(response).await.slug(), "validation-failed");
    }
    assert_eq!((app.note_count().await, app.key_count().await), (0, 0));
}

#[tokio::test]
async fn the_longest_valid_title_and_body_are_accepted() {
    let app = spawn_app().await;
    let body = serde_json::json!({
        "title": "é".repeat(200), "body": "\"".repeat(100_000), "written_at": "2026-11-30T05:00:00Z"
    });
    assert_eq!(app.post_note(Some("k"), &body).await.status(), 201);
}

#[tokio::test]
async fn an_unknown_field_from_a_newer_client_is_ignored() {
    let app = spawn_app().await;
    let body = serde_json::json!({
        "title": "From a newer client", "body": "b", "written_at": "2026-11-30T05:00:00Z",
        "colour": "green"
    });
    assert_eq!(app.post_note(Some("k"), &body).await.status(), 201);
    assert_eq!(app.note_count().await, 1);
}

#[tokio::test]
async fn a_wrong_method_is_405_with_allow_naming_the_methods_of_that_route() {
    let app = spawn_app().await;
    for (path, allow) in [
        ("/api/notes", "GET, POST"),
        ("/api/notes/abc", "GET, PATCH, DELETE"),
        ("/api/notes/abc/restore", "POST"),
        ("/api/trash", "GET"),
        ("/api/search", "GET"),
    ] {
        let response = app.client.put(app.url(path)).send().await.unwrap();
        assert_eq!(response.status(), 405, "{path}");
        assert_eq!(response.headers()["allow"], allow, "{path}");
        assert_eq!(problem_of(response).await.slug(), "method-not-allowed");
    }
}

#[tokio::test]
async fn a_written_at_before_1970_is_422_and_nothing_is_written() {
    let app = spawn_app().await;
    for when in ["0001-01-01T00:00:00Z", "1969-12-31T23:59:59Z"] {
        let body = serde_json::json!({ "title": "Old", "body": "b", "written_at": when });
        let response = app.post_note(Some(&format!("old-{when}")), &body).await;
        assert_eq!(response.status(), 422, "{when}");
        assert_eq!(problem_of(response).await.slug(), "validation-failed");
    }
    let created = app.create("Ahead", "a / b / c").await;
    let edit = serde_json::json!({
        "title": "Ahead", "body": "x", "base_version": 1, "written_at": "0001-01-01T00:00:00Z"
    });
    let response = app.patch_note(&created.id, "old-edit", &edit, &[]).await;
    assert_eq!(response.status(), 422);
    assert_eq!(app.note_count().await, 1);
}

#[tokio::test]
async fn a_written_at_far_ahead_of_the_server_is_stored_as_the_time_received_and_replays() {
    let app = spawn_app().await;
    let body = serde_json::json!({
        "title": "From a clock in the year 9999", "body": "b", "written_at": "9999-12-31T23:59:59Z"
    });
    let before = chrono::Utc::now();
    let first = app.post_note(Some("future"), &body).await;
    assert_eq!(first.status(), 201);
    let note: app::api::Note = first.json().await.unwrap();
    let written = chrono::DateTime::parse_from_rfc3339(&note.written_at)
        .unwrap()
        .to_utc();
    assert!(
        written >= before - chrono::Duration::seconds(1)
            && written <= chrono::Utc::now() + chrono::Duration::seconds(1),
        "stored as written at {written}"
    );
    // The same request again is the same request: replayed, not refused.
    let again = app.post_note(Some("future"), &body).await;
    assert_eq!(again.status(), 201);
    let replayed: app::api::Note = again.json().await.unwrap();
    assert_eq!(replayed.id, note.id);
    // A clock a few minutes fast is believed.
    let soon = (chrono::Utc::now() + chrono::Duration::seconds(60))
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let body = serde_json::json!({ "title": "Slightly ahead", "body": "b", "written_at": soon });
    let note: app::api::Note = app
        .post_note(Some("soon"), &body)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(note.written_at, soon);
}
