//! `server copy-to postgres://…`: an install moves from SQLite to PostgreSQL with every
//! account, session, API token, note, revision, stored answer and file, and copying
//! twice adds nothing.
//! Runs in the PostgreSQL pass of the suite (it needs a PostgreSQL server).

use app::api::IDEMPOTENT_REPLAYED_HEADER;
use server::config::Config;
use sha2::{Digest, Sha256};

use crate::helpers::{ADMIN, ADMIN_PASSWORD, client_with, note_json, spawn_app_on};
use crate::test_db::{Backend, TestDb, backend};

#[tokio::test]
async fn a_sqlite_install_copied_to_postgres_keeps_every_note_key_and_session_and_copying_again_adds_nothing()
 {
    if backend() != Backend::Postgres {
        eprintln!("copy-to needs PostgreSQL: it runs in the suite's PostgreSQL pass");
        return;
    }
    // A SQLite install with a history: notes, an edit, a note in the trash, a stored answer.
    let mut old = spawn_app_on(TestDb::on(Backend::Sqlite).await, |_| {}).await;
    let kept = old.post_note(Some("kept-key"), &note_json("Kept")).await;
    assert_eq!(kept.status(), 201);
    let kept_bytes = kept.bytes().await.unwrap();
    let edited = old.create("Edited", "one\n").await;
    let edit = serde_json::json!({ "title": "Edited", "body": "two #copied\n", "base_version": 1, "written_at": "2026-11-30T06:00:00.000Z" });
    assert_eq!(
        old.patch_note(&edited.id, "edit-key", &edit, &[])
            .await
            .status(),
        200
    );
    let trashed = old.create("Trashed", "b").await;
    assert_eq!(
        old.delete_note(&trashed.id, "trash-key", false)
            .await
            .status(),
        200
    );
    let pin = serde_json::json!({ "pinned": true, "written_at": "2026-11-30T06:00:00.000Z" });
    assert_eq!(
        old.patch_note(&edited.id, "pin-key", &pin, &[])
            .await
            .status(),
        200
    );
    let rename = old
        .client
        .post(old.url("/api/tags/rename"))
        .header("idempotency-key", "rename-key")
        .json(&serde_json::json!({ "from": "copied", "to": "moved", "written_at": "2026-11-30T06:00:00.000Z" }))
        .send()
        .await
        .unwrap();
    assert_eq!(rename.status(), 200);
    let script: app::api::TokenMade = old
        .client
        .post(old.url("/api/tokens"))
        .json(&serde_json::json!({ "name": "script" }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let session = old.session.clone().expect("signed in");
    old.shut_down(std::time::Duration::from_secs(10)).await;

    let target = TestDb::unmigrated(Backend::Postgres).await;
    let config = Config::for_tests(old.database_url.clone());
    let first = server::cli::copy_to(&config, &target.url)
        .await
        .expect("the copy");
    assert!(first.contains("notes"), "{first}");
    let again = server::cli::copy_to(&config, &target.url)
        .await
        .expect("the copy again");
    for line in again.lines().skip(1) {
        assert!(
            line.trim_end().ends_with("0 new in the target"),
            "copying again added rows: {line}"
        );
    }

    // The PostgreSQL install: the same person, the same session, the same notes.
    let new = spawn_app_on(target, |c| c.admin = None).await;
    let same_session = client_with(&session);
    let me = same_session.get(new.url("/api/me")).send().await.unwrap();
    assert_eq!(
        me.status(),
        200,
        "the session from SQLite works on PostgreSQL"
    );
    let by_token = crate::helpers::anonymous()
        .get(new.url("/api/notes"))
        .bearer_auth(&script.token)
        .send()
        .await
        .unwrap();
    assert_eq!(
        by_token.status(),
        200,
        "the token from SQLite works on PostgreSQL"
    );
    let token = new.sign_in(ADMIN, ADMIN_PASSWORD).await;
    let client = client_with(&token);
    let replay = client
        .post(new.url("/api/notes"))
        .header("idempotency-key", "kept-key")
        .json(&note_json("Kept"))
        .send()
        .await
        .unwrap();
    assert_eq!(replay.status(), 201);
    assert_eq!(replay.headers()[IDEMPOTENT_REPLAYED_HEADER], "true");
    assert_eq!(
        replay.bytes().await.unwrap(),
        kept_bytes,
        "the stored answer, byte for byte"
    );
    let now: app::api::Note = client
        .get(new.url(&format!("/api/notes/{}", edited.id)))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        (now.version, now.body.as_str(), now.pinned),
        (4, "two #moved\n", true)
    );
    assert_eq!(now.tags, ["moved"]);
    // The change feed came along: every note, and the next write takes a seq past them.
    let feed: app::api::ChangesPage = client
        .get(new.url("/api/changes?since=0"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(feed.changes.len(), 3, "{feed:?}");
    let fresh = client
        .post(new.url("/api/notes"))
        .header("idempotency-key", "after-the-copy")
        .json(&note_json("After the copy"))
        .send()
        .await
        .unwrap();
    assert_eq!(fresh.status(), 201);
    let after: app::api::ChangesPage = client
        .get(new.url(&format!("/api/changes?since={}", feed.next)))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(after.changes.len(), 1);
    assert!(after.changes[0].seq > feed.next);
    // The tags are found on PostgreSQL (their rows came along), and so is the rename's
    // outcome: the rename sent again after its key's row is gone renames nothing.
    let tagged: app::api::NotesPage = client
        .get(new.url("/api/notes?tag=moved"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(tagged.notes.len(), 1);
    assert!(tagged.notes[0].pinned);
    sqlx::query("DELETE FROM idempotency_keys WHERE idempotency_key = 'rename-key'")
        .execute(&new.pool)
        .await
        .unwrap();
    let late = client
        .post(new.url("/api/tags/rename"))
        .header("idempotency-key", "rename-key")
        .json(&serde_json::json!({ "from": "copied", "to": "moved", "written_at": "2026-11-30T06:00:00.000Z" }))
        .send()
        .await
        .unwrap();
    assert_eq!(late.headers()[IDEMPOTENT_REPLAYED_HEADER], "true");
    let history: app::api::RevisionsPage = client
        .get(new.url(&format!("/api/notes/{}/revisions", edited.id)))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(history.revisions.len(), 4);
    let trash: app::api::NotesPage = client
        .get(new.url("/api/trash"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(trash.notes.len(), 1);
    // Search works on the copied notes (their search document was made in PostgreSQL).
    let found: app::api::SearchPage = client
        .get(new.url("/api/search?q=edited"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(found.results.len(), 1);
    // The three copied, and the one written after the copy.
    assert_eq!(new.note_count().await, 4);
}

/// Makes a token with the admin's session of `app`.
async fn made_token(app: &crate::helpers::TestApp, name: &str) -> app::api::TokenMade {
    let response = app
        .client
        .post(app.url("/api/tokens"))
        .json(&serde_json::json!({ "name": name }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201, "making the token {name:?}");
    response.json().await.unwrap()
}

#[tokio::test]
async fn a_token_revoked_after_a_first_copy_stays_revoked_when_copying_again() {
    if backend() != Backend::Postgres {
        eprintln!("copy-to needs PostgreSQL: it runs in the suite's PostgreSQL pass");
        return;
    }
    let mut old = spawn_app_on(TestDb::on(Backend::Sqlite).await, |_| {}).await;
    let kept = made_token(&old, "kept").await;
    let revoked = made_token(&old, "revoked").await;
    let target = TestDb::unmigrated(Backend::Postgres).await;
    let config = Config::for_tests(old.database_url.clone());
    server::cli::copy_to(&config, &target.url)
        .await
        .expect("the first copy");
    let revoke = old
        .client
        .delete(old.url(&format!("/api/tokens/{}", revoked.id)))
        .send()
        .await
        .unwrap();
    assert_eq!(revoke.status(), 204);
    old.shut_down(std::time::Duration::from_secs(10)).await;
    server::cli::copy_to(&config, &target.url)
        .await
        .expect("the copy again");

    let new = spawn_app_on(target, |c| c.admin = None).await;
    let status = |token: String| {
        let url = new.url("/api/notes");
        async move {
            crate::helpers::anonymous()
                .get(url)
                .bearer_auth(token)
                .send()
                .await
                .unwrap()
                .status()
        }
    };
    assert_eq!(status(kept.token).await, 200, "the token still held");
    assert_eq!(status(revoked.token).await, 401, "the token revoked");
    let ids: Vec<String> = sqlx::query_scalar("SELECT id FROM api_tokens")
        .fetch_all(&new.pool)
        .await
        .unwrap();
    assert_eq!(ids, [kept.id]);
    // So is the session that made it: a password change tells it from other sessions'.
    let made_by: Option<String> = sqlx::query_scalar("SELECT made_by FROM api_tokens")
        .fetch_one(&new.pool)
        .await
        .unwrap();
    let session = old.session.as_deref().expect("the admin's session");
    assert_eq!(
        made_by,
        Some(hex::encode(Sha256::digest(session.as_bytes())))
    );
}

#[tokio::test]
async fn a_sqlite_install_copied_to_postgres_serves_every_file_and_keeps_its_references_and_usage()
{
    if backend() != Backend::Postgres {
        eprintln!("copy-to needs PostgreSQL: it runs in the suite's PostgreSQL pass");
        return;
    }
    let mut old = spawn_app_on(TestDb::on(Backend::Sqlite).await, |_| {}).await;
    // Larger than one chunk (256 KiB), so the copy carries several per file.
    let photo: Vec<u8> = (0..300_000u32).map(|n| (n % 251) as u8).collect();
    let photo_name = hex::encode(Sha256::digest(&photo));
    let put = old
        .client
        .put(old.url(&format!("/api/files/{photo_name}")))
        .header("content-type", "image/jpeg")
        .body(photo.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(put.status(), 201);
    old.create("Whiteboard", &format!("![board](/files/{photo_name})\n"))
        .await;
    let session = old.session.clone().expect("signed in");
    old.shut_down(std::time::Duration::from_secs(10)).await;

    let target = TestDb::unmigrated(Backend::Postgres).await;
    let config = Config::for_tests(old.database_url.clone());
    let first = server::cli::copy_to(&config, &target.url)
        .await
        .expect("the copy");
    for table in ["files", "file_chunks", "file_refs", "file_usage"] {
        assert!(first.contains(table), "{table} not copied: {first}");
    }
    let again = server::cli::copy_to(&config, &target.url)
        .await
        .expect("the copy again");
    for line in again.lines().skip(1) {
        assert!(
            line.trim_end().ends_with("0 new in the target"),
            "copying again added rows: {line}"
        );
    }

    let new = spawn_app_on(target, |c| c.admin = None).await;
    let client = client_with(&session);
    let served = client
        .get(new.url(&format!("/files/{photo_name}")))
        .send()
        .await
        .unwrap();
    assert_eq!(served.status(), 200);
    assert_eq!(served.bytes().await.unwrap().as_ref(), photo.as_slice());
    let list: app::api::FileList = client
        .get(new.url("/api/files"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list.used_bytes, photo.len() as u64);
    assert_eq!(list.files.len(), 1);
    let refs: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM file_refs WHERE sha256 = $1")
        .bind(&photo_name)
        .fetch_one(&new.pool)
        .await
        .unwrap();
    assert_eq!(refs, 1, "the note's reference came along");
}
