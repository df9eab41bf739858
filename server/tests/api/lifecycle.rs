//! Every write after the create — edit, trash, restore, delete for good — under the same
//! rules: a key per write, replayed byte for byte, 422 on reuse, and no edit ever lost.

use std::time::Duration;

use app::api::{EditAnswer, EditOutcome, IDEMPOTENT_REPLAYED_HEADER, NoteAnswer, RevisionKind};
use serde_json::json;

use crate::helpers::{TestApp, problem_of, spawn_app, spawn_app_with};

fn edit(title: &str, body: &str, base: i64) -> serde_json::Value {
    json!({ "title": title, "body": body, "base_version": base, "written_at": "2026-11-30T06:00:00.000Z" })
}

async fn edited(app: &TestApp, id: &str, key: &str, body: serde_json::Value) -> EditAnswer {
    let response = app.patch_note(id, key, &body, &[]).await;
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

#[tokio::test]
async fn an_edit_from_the_current_version_is_applied_and_bumps_the_version() {
    let app = spawn_app().await;
    let note = app.create("Plan", "one\ntwo\n").await;
    let response = app
        .patch_note(&note.id, "e1", &edit("Plan", "one\nTWO\n", 1), &[])
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["etag"], "\"2\"");
    let answer: EditAnswer = response.json().await.unwrap();
    assert_eq!(answer.outcome, EditOutcome::Applied);
    let now = answer.note.unwrap();
    assert_eq!((now.version, now.body.as_str()), (2, "one\nTWO\n"));
    let kinds: Vec<_> = app
        .revisions(&note.id)
        .await
        .into_iter()
        .map(|r| r.kind)
        .collect();
    assert_eq!(kinds, [RevisionKind::Create, RevisionKind::Edit]);
}

#[tokio::test]
async fn an_edit_is_replayed_byte_for_byte_even_after_the_note_changed_since() {
    let app = spawn_app().await;
    let note = app.create("Plan", "a\n").await;
    let first = app
        .patch_note(&note.id, "e1", &edit("Plan", "b\n", 1), &[])
        .await;
    let first_bytes = first.bytes().await.unwrap();
    edited(&app, &note.id, "e2", edit("Plan", "c\n", 2)).await;

    let again = app
        .patch_note(&note.id, "e1", &edit("Plan", "b\n", 1), &[])
        .await;
    assert_eq!(again.status(), 200);
    assert_eq!(again.headers()[IDEMPOTENT_REPLAYED_HEADER], "true");
    assert_eq!(again.bytes().await.unwrap(), first_bytes);
    assert_eq!(
        app.revisions(&note.id).await.len(),
        3,
        "create and two edits"
    );
}

#[tokio::test]
async fn an_edit_key_reused_with_another_payload_is_refused_and_writes_nothing() {
    let app = spawn_app().await;
    let note = app.create("Plan", "a\n").await;
    edited(&app, &note.id, "e1", edit("Plan", "b\n", 1)).await;
    let reused = app
        .patch_note(&note.id, "e1", &edit("Plan", "other\n", 1), &[])
        .await;
    assert_eq!(reused.status(), 422);
    assert_eq!(problem_of(reused).await.slug(), "idempotency-key-reused");
    assert_eq!(app.revision_count().await, 2);
}

#[tokio::test]
async fn a_stale_if_match_is_412_with_the_current_note_and_no_precondition_is_428() {
    let app = spawn_app().await;
    let note = app.create("Plan", "a\n").await;
    edited(&app, &note.id, "e1", edit("Plan", "b\n", 1)).await;

    let stale = app
        .patch_note(
            &note.id,
            "e2",
            &json!({ "body": "c", "written_at": "2026-11-30T06:00:00Z" }),
            &[("if-match", "\"1\"")],
        )
        .await;
    assert_eq!(stale.status(), 412);
    assert_eq!(stale.headers()["etag"], "\"2\"");
    let problem: serde_json::Value = stale.json().await.unwrap();
    assert_eq!(problem["type"], "/problems/precondition-failed");
    assert_eq!(problem["current"]["version"], 2);
    assert_eq!(problem["current"]["body"], "b\n");

    let unanchored = app
        .patch_note(
            &note.id,
            "e3",
            &json!({ "body": "c", "written_at": "2026-11-30T06:00:00Z" }),
            &[],
        )
        .await;
    assert_eq!(unanchored.status(), 428);
    assert_eq!(problem_of(unanchored).await.slug(), "precondition-required");

    let current = app
        .patch_note(
            &note.id,
            "e2",
            &json!({ "body": "c", "written_at": "2026-11-30T06:00:00Z" }),
            &[("if-match", "\"2\"")],
        )
        .await;
    assert_eq!(current.status(), 200, "the refused key was not used up");
    assert_eq!(app.revision_count().await, 3);
}

#[tokio::test]
async fn two_devices_editing_different_lines_are_merged_and_both_changes_kept() {
    let app = spawn_app().await;
    let note = app.create("Plan", "one\ntwo\nthree\nfour\nfive\n").await;
    let a = edited(
        &app,
        &note.id,
        "device-a",
        edit("Plan", "ONE\ntwo\nthree\nfour\nfive\n", 1),
    )
    .await;
    assert_eq!(a.outcome, EditOutcome::Applied);
    let b = edited(
        &app,
        &note.id,
        "device-b",
        edit("Plan", "one\ntwo\nthree\nfour\nFIVE\n", 1),
    )
    .await;
    assert_eq!(b.outcome, EditOutcome::Merged);
    let now = b.note.unwrap();
    assert_eq!(now.body, "ONE\ntwo\nthree\nfour\nFIVE\n");
    assert_eq!(now.version, 3);
    assert!(b.copy.is_none());
    assert_eq!(app.revisions(&note.id).await[2].kind, RevisionKind::Merge);
}

#[tokio::test]
async fn two_devices_editing_the_same_line_keep_the_note_and_save_the_second_as_a_conflict_copy() {
    let app = spawn_app().await;
    let note = app.create("Plan", "one\ntwo\nthree\n").await;
    edited(
        &app,
        &note.id,
        "device-a",
        edit("Plan", "one\ntwo from A\nthree\n", 1),
    )
    .await;
    let b = edited(
        &app,
        &note.id,
        "device-b",
        edit("Plan", "one\ntwo from B\nthree\n", 1),
    )
    .await;

    assert_eq!(b.outcome, EditOutcome::ConflictCopy);
    let kept = b.note.unwrap();
    assert_eq!(kept.body, "one\ntwo from A\nthree\n");
    assert_eq!(kept.version, 2, "the note is left as it was");
    let copy = b.copy.unwrap();
    assert_eq!(copy.body, "one\ntwo from B\nthree\n");
    assert_eq!(copy.conflict_of.as_deref(), Some(note.id.as_str()));
    assert!(copy.title.contains("conflict copy"), "{}", copy.title);
    let stored: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM notes WHERE body LIKE '%two from%'")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(stored, 2, "both texts are stored");
}

#[tokio::test]
async fn a_conflict_copy_of_a_title_at_the_limit_keeps_within_the_limit() {
    let app = spawn_app().await;
    let long = "t".repeat(200);
    let note = app.create(&long, "a").await;
    edited(&app, &note.id, "a", edit(&"a".repeat(200), "a", 1)).await;
    let b = edited(&app, &note.id, "b", edit(&"b".repeat(200), "a", 1)).await;
    let copy = b.copy.unwrap();
    assert_eq!(copy.title.chars().count(), 200);
    assert!(copy.title.ends_with("(conflict copy)"));
}

#[tokio::test]
async fn an_edit_of_a_note_in_the_trash_is_kept_and_the_note_stays_there() {
    let app = spawn_app().await;
    let note = app.create("Plan", "a\n").await;
    assert_eq!(app.delete_note(&note.id, "t1", false).await.status(), 200);
    let answer = edited(
        &app,
        &note.id,
        "e1",
        edit("Plan", "edited in the trash\n", 2),
    )
    .await;
    assert_eq!(answer.outcome, EditOutcome::Applied);
    let now = answer.note.unwrap();
    assert!(now.trashed_at.is_some());
    assert_eq!(now.body, "edited in the trash\n");
}

#[tokio::test]
async fn an_edit_of_a_note_deleted_for_good_becomes_a_conflict_copy_and_the_text_is_kept() {
    let app = spawn_app().await;
    let note = app.create("Plan", "a\n").await;
    assert_eq!(app.delete_note(&note.id, "p1", true).await.status(), 204);
    let answer = edited(
        &app,
        &note.id,
        "late-edit",
        edit("Plan", "the late text\n", 1),
    )
    .await;
    assert_eq!(answer.outcome, EditOutcome::ConflictCopy);
    assert!(answer.note.is_none());
    assert_eq!(answer.copy.unwrap().body, "the late text\n");
    let unknown = app
        .patch_note(
            &uuid::Uuid::new_v4().to_string(),
            "e9",
            &edit("x", "y", 1),
            &[],
        )
        .await;
    assert_eq!(unknown.status(), 404);
}

#[tokio::test]
async fn trash_restore_and_delete_for_good_are_replayed_and_lists_follow() {
    let app = spawn_app().await;
    let note = app.create("Plan", "a\n").await;

    let trashed = app.delete_note(&note.id, "t1", false).await;
    assert_eq!(trashed.status(), 200);
    let trashed_bytes = trashed.bytes().await.unwrap();
    let answer: NoteAnswer = serde_json::from_slice(&trashed_bytes).unwrap();
    assert!(answer.note.trashed_at.is_some());
    assert_eq!(answer.note.version, 2);
    let again = app.delete_note(&note.id, "t1", false).await;
    assert_eq!(again.headers()[IDEMPOTENT_REPLAYED_HEADER], "true");
    assert_eq!(again.bytes().await.unwrap(), trashed_bytes);
    let live: app::api::NotesPage = app.get("/api/notes").await.json().await.unwrap();
    assert!(live.notes.is_empty(), "the list leaves out the trash");
    let trash: app::api::NotesPage = app.get("/api/trash").await.json().await.unwrap();
    assert_eq!(trash.notes.len(), 1);

    let restored: NoteAnswer = app.restore_note(&note.id, "r1").await.json().await.unwrap();
    assert!(restored.note.trashed_at.is_none());
    assert_eq!(restored.note.version, 3);
    let replayed = app.restore_note(&note.id, "r1").await;
    assert_eq!(replayed.headers()[IDEMPOTENT_REPLAYED_HEADER], "true");

    assert_eq!(app.delete_note(&note.id, "p1", true).await.status(), 204);
    let purge_again = app.delete_note(&note.id, "p1", true).await;
    assert_eq!(purge_again.status(), 204);
    assert_eq!(purge_again.headers()[IDEMPOTENT_REPLAYED_HEADER], "true");
    assert_eq!(
        app.get(&format!("/api/notes/{}", note.id)).await.status(),
        404
    );
    assert_eq!(
        app.revision_count().await,
        0,
        "the revisions went with the note"
    );
}

#[tokio::test]
async fn the_history_holds_one_revision_per_accepted_write_in_order() {
    let app = spawn_app().await;
    let note = app.create("Plan", "a\n").await;
    edited(&app, &note.id, "e1", edit("Plan", "b\n", 1)).await;
    edited(&app, &note.id, "e2", edit("Plan 2", "b\n", 2)).await;
    app.delete_note(&note.id, "t1", false).await;
    app.restore_note(&note.id, "r1").await;
    let history = app.revisions(&note.id).await;
    let summary: Vec<_> = history
        .iter()
        .map(|r| (r.version, r.kind, r.title.as_str(), r.body.as_str()))
        .collect();
    assert_eq!(
        summary,
        [
            (1, RevisionKind::Create, "Plan", "a\n"),
            (2, RevisionKind::Edit, "Plan", "b\n"),
            (3, RevisionKind::Edit, "Plan 2", "b\n"),
            (4, RevisionKind::Trash, "Plan 2", "b\n"),
            (5, RevisionKind::Restore, "Plan 2", "b\n"),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thirty_two_concurrent_requests_with_one_edit_key_make_one_revision() {
    let app = spawn_app().await;
    let note = app.create("Plan", "a\n").await;
    let body = edit("Plan", "b\n", 1);
    let requests = (0..32).map(|_| async {
        let response = app.patch_note(&note.id, "one-edit", &body, &[]).await;
        (response.status().as_u16(), response.bytes().await.unwrap())
    });
    let answers = futures::future::join_all(requests).await;
    assert!(answers.iter().all(|(status, _)| *status == 200));
    assert!(answers.iter().all(|(_, body)| *body == answers[0].1));
    assert_eq!(app.revisions(&note.id).await.len(), 2);
}

#[tokio::test]
async fn late_retries_after_the_key_expired_get_the_same_outcome_and_write_nothing_new() {
    let app = spawn_app().await;
    let note = app.create("Plan", "one\ntwo\nthree\n").await;
    edited(
        &app,
        &note.id,
        "device-a",
        edit("Plan", "one\nA\nthree\n", 1),
    )
    .await;
    let merged = edited(
        &app,
        &note.id,
        "device-b",
        edit("Plan", "one\nA\nthree\nfour\n", 1),
    )
    .await;
    let copied = edited(
        &app,
        &note.id,
        "device-c",
        edit("Plan", "one\nC\nthree\n", 1),
    )
    .await;
    app.delete_note(&note.id, "trash", false).await;
    sqlx::query("DELETE FROM idempotency_keys")
        .execute(&app.pool)
        .await
        .unwrap();
    let revisions = app.revision_count().await;

    let late = app
        .patch_note(
            &note.id,
            "device-b",
            &edit("Plan", "one\nA\nthree\nfour\n", 1),
            &[],
        )
        .await;
    assert_eq!(late.headers()[IDEMPOTENT_REPLAYED_HEADER], "true");
    let late: EditAnswer = late.json().await.unwrap();
    assert_eq!(late.outcome, merged.outcome);
    let late_copy: EditAnswer = app
        .patch_note(
            &note.id,
            "device-c",
            &edit("Plan", "one\nC\nthree\n", 1),
            &[],
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(late_copy.outcome, EditOutcome::ConflictCopy);
    assert_eq!(late_copy.copy.unwrap().id, copied.copy.unwrap().id);
    let late_trash = app.delete_note(&note.id, "trash", false).await;
    assert_eq!(late_trash.status(), 200);
    assert_eq!(late_trash.headers()[IDEMPOTENT_REPLAYED_HEADER], "true");
    assert_eq!(
        app.revision_count().await,
        revisions,
        "nothing was written twice"
    );
    assert_eq!(app.note_count().await, 2, "the note and one conflict copy");
}

#[tokio::test]
async fn notes_kept_in_the_trash_past_the_retention_are_deleted_for_good() {
    let app = spawn_app_with(|config| {
        config.trash_retention = Duration::ZERO;
        config.sweep_interval = Duration::from_millis(100);
    })
    .await;
    let note = app.create("Old", "a\n").await;
    let kept = app.create("Kept", "b\n").await;
    app.delete_note(&note.id, "t1", false).await;
    let mut waited = Duration::ZERO;
    while app.get(&format!("/api/notes/{}", note.id)).await.status() != 404 {
        assert!(
            waited < Duration::from_secs(10),
            "the trash was not emptied in 10 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
        waited += Duration::from_millis(50);
    }
    assert_eq!(
        app.get(&format!("/api/notes/{}", kept.id)).await.status(),
        200
    );
    let tombstones: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM tombstones")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(tombstones, 1);
}

#[tokio::test]
async fn writes_to_a_note_that_never_existed_are_404_and_use_up_no_key() {
    let app = spawn_app().await;
    let missing = uuid::Uuid::new_v4().to_string();
    assert_eq!(app.delete_note(&missing, "k", false).await.status(), 404);
    assert_eq!(app.restore_note(&missing, "k").await.status(), 404);
    assert_eq!(app.delete_note(&missing, "k", true).await.status(), 404);
    assert_eq!(app.key_count().await, 0);
    let note = app.create("Plan", "a").await;
    assert_eq!(app.delete_note(&note.id, "k", false).await.status(), 200);
}

#[tokio::test]
async fn a_base_version_from_the_future_is_refused() {
    let app = spawn_app().await;
    let note = app.create("Plan", "a").await;
    let response = app
        .patch_note(&note.id, "e1", &edit("Plan", "b", 7), &[])
        .await;
    assert_eq!(response.status(), 422);
    assert_eq!(app.revision_count().await, 1);
}
