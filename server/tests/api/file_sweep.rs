//! Files no note refers to are swept once the grace period has passed
//! (`ONCENOTE_FILE_GRACE_DAYS`), and only those: a file a note refers to — in the trash,
//! in an older version, or written before the file arrived — is kept, and the person's
//! usage stays exact.
//!
//! The grace is an hour here; a test makes a file "older than the grace" by moving its
//! `last_seen_at` back, and knows a sweep ran when a canary (an unreferenced file, moved
//! back too) is gone.

use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::helpers::{TestApp, spawn_app_with};

/// The bytes of a small PNG-ish file, different for each `seed`.
fn file_bytes(seed: &str) -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    bytes.extend_from_slice(seed.as_bytes());
    bytes.extend(std::iter::repeat_n(7u8, 1000));
    bytes
}

fn sha256_of(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// An app that sweeps every 100 ms, with a grace of an hour.
async fn sweeping_app() -> TestApp {
    spawn_app_with(|c| {
        c.sweep_interval = Duration::from_millis(100);
        c.file_grace = Duration::from_secs(3600);
    })
    .await
}

/// Uploads `bytes` as the admin: `PUT /api/files/{sha256}`. Returns the name.
async fn upload(app: &TestApp, bytes: &[u8]) -> String {
    let sha256 = sha256_of(bytes);
    let response = app
        .client
        .put(app.url(&format!("/api/files/{sha256}")))
        .header("content-type", "image/png")
        .body(bytes.to_vec())
        .send()
        .await
        .expect("the server answers");
    assert_eq!(response.status(), 201, "uploading {sha256}");
    sha256
}

/// Moves the file's `last_seen_at` back past the grace.
async fn age(app: &TestApp, sha256: &str) {
    sqlx::query("UPDATE files SET last_seen_at = $1 WHERE sha256 = $2")
        .bind("2000-01-01T00:00:00.000000Z")
        .bind(sha256)
        .execute(&app.pool)
        .await
        .unwrap();
}

async fn is_stored(app: &TestApp, sha256: &str) -> bool {
    let files: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM files WHERE sha256 = $1")
        .bind(sha256)
        .fetch_one(&app.pool)
        .await
        .unwrap();
    files == 1
}

async fn chunk_count(app: &TestApp, sha256: &str) -> i64 {
    sqlx::query_scalar("SELECT COUNT(*) FROM file_chunks WHERE sha256 = $1")
        .bind(sha256)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

/// What a file of `bytes` costs of its person's quota (at least 4 KiB).
fn charge(bytes: &[u8]) -> i64 {
    app::api::quota_charge(bytes.len() as u64) as i64
}

/// The admin's usage (the only person with files here).
async fn used_bytes(app: &TestApp) -> i64 {
    let used: Option<i64> = sqlx::query_scalar("SELECT used_bytes FROM file_usage")
        .fetch_optional(&app.pool)
        .await
        .unwrap();
    used.unwrap_or(0)
}

async fn last_seen_at(app: &TestApp, sha256: &str) -> String {
    sqlx::query_scalar("SELECT last_seen_at FROM files WHERE sha256 = $1")
        .bind(sha256)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

/// Uploads a file no note refers to, ages it, and waits until the sweeper took it: every
/// file aged before this call has been through a sweep by then.
async fn sweep_once(app: &TestApp) {
    let canary = upload(app, &file_bytes(&uuid::Uuid::new_v4().to_string())).await;
    age(app, &canary).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while is_stored(app, &canary).await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the sweeper did not sweep in 10 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn image_markdown(sha256: &str) -> String {
    format!("A whiteboard:\n\n![whiteboard](/files/{sha256})\n")
}

#[tokio::test]
async fn a_file_no_note_refers_to_is_swept_after_the_grace_with_its_bytes_and_its_usage() {
    let app = sweeping_app().await;
    let unused = file_bytes("unused");
    let unused_name = upload(&app, &unused).await;
    let kept = file_bytes("kept");
    let kept_name = upload(&app, &kept).await;
    app.create("Board", &image_markdown(&kept_name)).await;
    assert_eq!(used_bytes(&app).await, charge(&unused) + charge(&kept));

    // Inside the grace: a sweep keeps it.
    sweep_once(&app).await;
    assert!(
        is_stored(&app, &unused_name).await,
        "swept inside the grace"
    );

    age(&app, &unused_name).await;
    age(&app, &kept_name).await;
    sweep_once(&app).await;
    assert!(!is_stored(&app, &unused_name).await, "not swept");
    assert_eq!(chunk_count(&app, &unused_name).await, 0, "its bytes stayed");
    assert_eq!(
        app.get(&format!("/files/{unused_name}")).await.status(),
        404
    );
    assert!(is_stored(&app, &kept_name).await, "a referred file went");
    assert_eq!(app.get(&format!("/files/{kept_name}")).await.status(), 200);
    assert_eq!(used_bytes(&app).await, charge(&kept), "the usage is exact");
}

#[tokio::test]
async fn a_file_referred_to_again_inside_the_grace_is_kept() {
    let app = sweeping_app().await;
    let name = upload(&app, &file_bytes("again")).await;
    let first = app.create("First", &image_markdown(&name)).await;
    assert_eq!(
        app.delete_note(&first.id, "purge", true).await.status(),
        204
    );
    // Lost its only reference: it waits the grace from now, and is referred to again.
    app.create("Second", &image_markdown(&name)).await;
    age(&app, &name).await;
    sweep_once(&app).await;
    assert!(is_stored(&app, &name).await, "a referred file was swept");
}

#[tokio::test]
async fn a_file_a_note_in_the_trash_refers_to_is_kept() {
    let app = sweeping_app().await;
    let name = upload(&app, &file_bytes("trashed")).await;
    let note = app.create("Trashed", &image_markdown(&name)).await;
    assert_eq!(
        app.delete_note(&note.id, "trash", false).await.status(),
        200
    );
    age(&app, &name).await;
    sweep_once(&app).await;
    assert!(
        is_stored(&app, &name).await,
        "the trashed note's file was swept"
    );
}

#[tokio::test]
async fn a_file_only_an_older_version_of_a_note_refers_to_is_kept() {
    let app = sweeping_app().await;
    let name = upload(&app, &file_bytes("history")).await;
    let note = app.create("Board", &image_markdown(&name)).await;
    let edit = serde_json::json!({ "title": "Board", "body": "no picture now\n", "base_version": 1, "written_at": "2026-11-30T06:00:00.000Z" });
    assert_eq!(
        app.patch_note(&note.id, "edit", &edit, &[]).await.status(),
        200
    );
    age(&app, &name).await;
    sweep_once(&app).await;
    assert!(
        is_stored(&app, &name).await,
        "restoring the first version would show a broken image"
    );
}

#[tokio::test]
async fn deleting_for_good_the_only_note_that_refers_to_a_file_lets_it_be_swept_after_the_grace() {
    let app = sweeping_app().await;
    let bytes = file_bytes("purged");
    let name = upload(&app, &bytes).await;
    let note = app.create("Board", &image_markdown(&name)).await;
    age(&app, &name).await;
    let before = used_bytes(&app).await;
    assert_eq!(app.delete_note(&note.id, "purge", true).await.status(), 204);
    let refs: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM file_refs")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(refs, 0, "the purge left its references");
    // The grace counts from the purge, not from the upload.
    assert!(last_seen_at(&app, &name).await.as_str() > "2000-01-01T00:00:00.000000Z");
    sweep_once(&app).await;
    assert!(is_stored(&app, &name).await, "swept before its grace");

    age(&app, &name).await;
    sweep_once(&app).await;
    assert!(!is_stored(&app, &name).await, "not swept after its grace");
    assert_eq!(used_bytes(&app).await, before - charge(&bytes));
}

#[tokio::test]
async fn a_note_written_before_its_file_was_uploaded_keeps_the_file_once_it_arrives() {
    let app = sweeping_app().await;
    let bytes = file_bytes("offline");
    // Written offline: the note went first, the upload after.
    app.create("Offline", &image_markdown(&sha256_of(&bytes)))
        .await;
    let name = upload(&app, &bytes).await;
    age(&app, &name).await;
    sweep_once(&app).await;
    assert!(is_stored(&app, &name).await, "the note's file was swept");
}

#[tokio::test]
async fn the_trash_emptied_for_good_lets_its_files_be_swept_after_the_grace() {
    let app = spawn_app_with(|c| {
        c.sweep_interval = Duration::from_millis(100);
        c.file_grace = Duration::from_secs(3600);
        c.trash_retention = Duration::ZERO;
    })
    .await;
    let name = upload(&app, &file_bytes("emptied")).await;
    let note = app.create("Board", &image_markdown(&name)).await;
    assert_eq!(
        app.delete_note(&note.id, "trash", false).await.status(),
        200
    );
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while app.get(&format!("/api/notes/{}", note.id)).await.status() != 404 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the trash was not emptied"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let refs: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM file_refs")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(refs, 0, "emptying the trash left references");
    sweep_once(&app).await;
    assert!(is_stored(&app, &name).await, "swept before its grace");
    age(&app, &name).await;
    sweep_once(&app).await;
    assert!(!is_stored(&app, &name).await, "not swept after its grace");
}

#[tokio::test]
async fn every_write_that_refers_to_a_file_marks_it_seen_so_a_racing_sweep_keeps_it() {
    // On PostgreSQL a sweep may have read a file as unreferenced just before a write
    // refers to it; the sweep deletes only a row still unseen once it holds it, so the
    // write must mark the row seen (in its own transaction), on every kind of write.
    let app = sweeping_app().await;
    let name = upload(&app, &file_bytes("seen")).await;
    // Another note refers to it all along, so the sweeper leaves it while it is aged.
    app.create("Keeper", &image_markdown(&name)).await;
    let aged = "2000-01-01T00:00:00.000000Z";
    age(&app, &name).await;
    let note = app.create("Board", &image_markdown(&name)).await;
    assert!(last_seen_at(&app, &name).await.as_str() > aged, "a create");
    age(&app, &name).await;
    let edit = serde_json::json!({ "title": "Board", "body": format!("{}again\n", image_markdown(&name)), "base_version": 1, "written_at": "2026-11-30T06:00:00.000Z" });
    assert_eq!(
        app.patch_note(&note.id, "edit", &edit, &[]).await.status(),
        200
    );
    assert!(last_seen_at(&app, &name).await.as_str() > aged, "an edit");
    age(&app, &name).await;
    assert_eq!(
        app.delete_note(&note.id, "trash", false).await.status(),
        200
    );
    assert!(
        last_seen_at(&app, &name).await.as_str() > aged,
        "a move to the trash"
    );
}

#[tokio::test]
async fn a_sweep_gives_back_exactly_what_each_file_was_charged() {
    // A file is charged at least 4 KiB of its person's quota (issue #60); the sweep takes
    // off that charge, not the file's bytes, so the usage comes back to nothing.
    let app = sweeping_app().await;
    let tiny = upload(&app, b"\x89PNG\r\n\x1a\ntiny").await;
    let large_bytes = vec![9u8; 6000];
    let large = upload(&app, &large_bytes).await;
    assert_eq!(used_bytes(&app).await, 4096 + 6000);
    age(&app, &tiny).await;
    age(&app, &large).await;
    sweep_once(&app).await;
    assert!(!is_stored(&app, &tiny).await && !is_stored(&app, &large).await);
    assert_eq!(used_bytes(&app).await, 0, "the usage is exact");
}
