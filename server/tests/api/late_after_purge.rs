//! Exactly once, however late: a write retried after its key's answer expired, whose note
//! was deleted for good meanwhile (on another device), is told "deleted elsewhere" — the
//! note is never made again, and no conflict copy appears (issue 21).

use std::time::Duration;

use app::api::IDEMPOTENT_REPLAYED_HEADER;
use serde_json::json;

use crate::helpers::{TestApp, note_json, problem_of, spawn_app_with};

/// An app whose keys' answers expire after a second and are swept often.
async fn app_with_short_lived_keys() -> TestApp {
    spawn_app_with(|c| {
        c.idempotency_ttl = Duration::from_secs(1);
        c.sweep_interval = Duration::from_millis(100);
    })
    .await
}

/// Waits until every key's answer has expired and been swept.
async fn keys_expired(app: &TestApp) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    while app.key_count().await > 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the keys did not expire"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn edit_json(body: &str, base: i64) -> serde_json::Value {
    json!({ "title": "Plan", "body": body, "base_version": base, "written_at": "2026-11-30T06:00:00.000Z" })
}

async fn assert_deleted_elsewhere(response: reqwest::Response) {
    assert_eq!(response.status(), 410);
    let problem = problem_of(response).await;
    assert_eq!(problem.slug(), "deleted-elsewhere");
    assert!(
        problem.detail.contains("deleted for good"),
        "{}",
        problem.detail
    );
}

#[tokio::test]
async fn a_late_create_whose_note_was_deleted_for_good_is_told_so_and_makes_nothing() {
    let app = app_with_short_lived_keys().await;
    let created = app.post_note(Some("late-create"), &note_json("Plan")).await;
    assert_eq!(created.status(), 201);
    let note: app::api::Note = created.json().await.unwrap();
    assert_eq!(app.delete_note(&note.id, "purge", true).await.status(), 204);
    keys_expired(&app).await;

    let late = app.post_note(Some("late-create"), &note_json("Plan")).await;
    assert_deleted_elsewhere(late).await;
    assert_eq!(app.note_count().await, 0, "the note was not made again");
    // Told the same again, from the answer the key now keeps.
    let again = app.post_note(Some("late-create"), &note_json("Plan")).await;
    assert_eq!(again.headers()[IDEMPOTENT_REPLAYED_HEADER], "true");
    assert_deleted_elsewhere(again).await;
    // The key is still this create's: another request with it is refused.
    let other = app
        .post_note(Some("late-create"), &note_json("Other"))
        .await;
    assert_eq!(other.status(), 422);
    assert_eq!(app.note_count().await, 0);
}

#[tokio::test]
async fn a_late_edit_whose_note_was_deleted_for_good_is_told_so_and_makes_no_copy() {
    let app = app_with_short_lived_keys().await;
    let note = app.create("Plan", "one\ntwo\n").await;
    let applied = app
        .patch_note(&note.id, "late-edit", &edit_json("one\nTWO\n", 1), &[])
        .await;
    assert_eq!(applied.status(), 200);
    assert_eq!(app.delete_note(&note.id, "purge", true).await.status(), 204);
    keys_expired(&app).await;

    let late = app
        .patch_note(&note.id, "late-edit", &edit_json("one\nTWO\n", 1), &[])
        .await;
    assert_deleted_elsewhere(late).await;
    assert_eq!(app.note_count().await, 0, "no conflict copy of a done edit");
    // An edit that never reached the server before the delete is still kept as a copy:
    // its text is nowhere else.
    let unsent = app
        .patch_note(&note.id, "never-sent", &edit_json("one\nNEW\n", 1), &[])
        .await;
    assert_eq!(unsent.status(), 200);
    assert_eq!(app.note_count().await, 1);
}

#[tokio::test]
async fn late_moves_to_and_from_the_trash_after_a_delete_for_good_are_told_so() {
    let app = app_with_short_lived_keys().await;
    let note = app.create("Plan", "one\n").await;
    assert_eq!(
        app.delete_note(&note.id, "trash", false).await.status(),
        200
    );
    assert_eq!(app.restore_note(&note.id, "restore").await.status(), 200);
    assert_eq!(app.delete_note(&note.id, "purge", true).await.status(), 204);
    keys_expired(&app).await;

    assert_deleted_elsewhere(app.delete_note(&note.id, "trash", false).await).await;
    assert_deleted_elsewhere(app.restore_note(&note.id, "restore").await).await;
    assert_eq!(app.delete_note(&note.id, "purge", true).await.status(), 204);
    assert_eq!(app.note_count().await, 0);
    assert_eq!(app.revision_count().await, 0, "nothing was written again");
}

#[tokio::test]
async fn what_a_delete_for_good_remembers_is_swept_after_the_tombstone_days() {
    let app = spawn_app_with(|c| {
        c.tombstone_retention = Duration::ZERO;
        c.sweep_interval = Duration::from_millis(100);
    })
    .await;
    let note = app.create("Plan", "one\n").await;
    app.delete_note(&note.id, "trash", false).await;
    app.delete_note(&note.id, "purge", true).await;
    let remembered = || async {
        let keys: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM purged_keys")
            .fetch_one(&app.pool)
            .await
            .unwrap();
        let tombstones: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM tombstones")
            .fetch_one(&app.pool)
            .await
            .unwrap();
        keys + tombstones
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while remembered().await > 0 {
        assert!(tokio::time::Instant::now() < deadline, "nothing was swept");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
