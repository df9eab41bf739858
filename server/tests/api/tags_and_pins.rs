//! Tags and pins (PROTOCOL.md v3): tags found in the text and kept with every write, the
//! tag list and `?tag=`, `#tag` in search, a rename saved exactly once, and pins — a
//! write like any other — listed first with a cursor that walks both parts.

use std::collections::HashSet;

use app::api::{
    IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, NoteAnswer, NotesPage, RevisionKind,
    SearchPage, TagList, TagRenamed,
};
use serde_json::json;

use crate::helpers::{TestApp, problem_of, spawn_app};

const AT: &str = "2026-12-01T06:00:00.000Z";

async fn pin(app: &TestApp, id: &str, key: &str, pinned: bool) -> reqwest::Response {
    app.patch_note(id, key, &json!({ "pinned": pinned, "written_at": AT }), &[])
        .await
}

async fn rename(app: &TestApp, key: &str, from: &str, to: &str) -> reqwest::Response {
    app.client
        .post(app.url("/api/tags/rename"))
        .header(IDEMPOTENCY_KEY_HEADER, key)
        .json(&json!({ "from": from, "to": to, "written_at": AT }))
        .send()
        .await
        .expect("the server answers")
}

async fn tags(app: &TestApp) -> Vec<(String, i64)> {
    let list: TagList = app.get("/api/tags").await.json().await.unwrap();
    list.tags.into_iter().map(|t| (t.name, t.count)).collect()
}

async fn titles_tagged(app: &TestApp, tag: &str) -> Vec<String> {
    let page: NotesPage = app
        .get(&format!("/api/notes?tag={tag}"))
        .await
        .json()
        .await
        .unwrap();
    page.notes.into_iter().map(|n| n.title).collect()
}

#[tokio::test]
async fn a_note_carries_the_tags_of_its_text_and_they_follow_every_edit() {
    let app = spawn_app().await;
    let note = app
        .create(
            "Trip #Travel",
            "Pack `#notatag` for #travel/Japan, see https://x.test/#frag",
        )
        .await;
    assert_eq!(note.tags, ["travel", "travel/japan"]);
    assert_eq!(app.note(&note.id).await.tags, note.tags);
    let response = app
        .patch_note(
            &note.id,
            "e1",
            &json!({ "body": "now #work", "base_version": 1, "written_at": AT }),
            &[],
        )
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(app.note(&note.id).await.tags, ["travel", "work"]);
    assert_eq!(
        tags(&app).await,
        [("travel".to_owned(), 1), ("work".to_owned(), 1)]
    );
}

#[tokio::test]
async fn the_tag_list_counts_notes_outside_the_trash_and_a_tag_lists_its_nested_tags_too() {
    let app = spawn_app().await;
    app.create("A", "#work").await;
    app.create("B", "#work/meetings #home").await;
    app.create("C", "#workshop").await;
    let trashed = app.create("D", "#work").await;
    app.delete_note(&trashed.id, "t1", false).await;
    assert_eq!(
        tags(&app).await,
        [
            ("home".to_owned(), 1),
            ("work".to_owned(), 1),
            ("work/meetings".to_owned(), 1),
            ("workshop".to_owned(), 1)
        ]
    );
    assert_eq!(titles_tagged(&app, "work").await, ["B", "A"]);
    assert_eq!(titles_tagged(&app, "WORK/Meetings").await, ["B"]);
    assert!(titles_tagged(&app, "nothing").await.is_empty());
    let bad = app.get("/api/notes?tag=a%20b").await;
    assert_eq!(bad.status(), 400);
    assert_eq!(problem_of(bad).await.status, 400);
}

#[tokio::test]
async fn a_hash_tag_in_search_matches_the_tag_alone_or_with_words() {
    let app = spawn_app().await;
    app.create("Standup", "notes #work").await;
    app.create("Standup at home", "#home").await;
    app.create("Plan", "#work/q4 budget").await;
    let search = |q: &str| {
        let app = &app;
        let q = q.to_owned();
        async move {
            let response = app
                .client
                .get(app.url("/api/search"))
                .query(&[("q", q.as_str())])
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 200, "{q}");
            let page: SearchPage = response.json().await.unwrap();
            let mut titles: Vec<String> = page.results.into_iter().map(|h| h.note.title).collect();
            titles.sort();
            titles
        }
    };
    assert_eq!(search("#work").await, ["Plan", "Standup"]);
    assert_eq!(search("standup #work").await, ["Standup"]);
    assert_eq!(search("standup").await, ["Standup", "Standup at home"]);
    assert_eq!(search("#work budget").await, ["Plan"]);
    assert!(search("#nothing").await.is_empty());
}

#[tokio::test]
async fn a_pin_is_a_write_with_its_own_revision_replayed_byte_for_byte() {
    let app = spawn_app().await;
    let note = app.create("Keep", "body").await;
    let first = pin(&app, &note.id, "p1", true).await;
    assert_eq!(first.status(), 200);
    assert_eq!(first.headers()["etag"], "\"2\"");
    let bytes = first.bytes().await.unwrap();
    let answer: NoteAnswer = serde_json::from_slice(&bytes).unwrap();
    assert!(answer.note.pinned);
    assert_eq!(answer.note.version, 2);
    let again = pin(&app, &note.id, "p1", true).await;
    assert_eq!(again.headers()[IDEMPOTENT_REPLAYED_HEADER], "true");
    assert_eq!(again.bytes().await.unwrap(), bytes);
    let reused = pin(&app, &note.id, "p1", false).await;
    assert_eq!(reused.status(), 422);
    assert_eq!(pin(&app, &note.id, "p2", false).await.status(), 200);
    let kinds: Vec<_> = app
        .revisions(&note.id)
        .await
        .into_iter()
        .map(|r| r.kind)
        .collect();
    assert_eq!(
        kinds,
        [RevisionKind::Create, RevisionKind::Pin, RevisionKind::Unpin]
    );
    assert!(!app.note(&note.id).await.pinned);
}

#[tokio::test]
async fn a_pin_needs_no_precondition_but_is_sent_alone() {
    let app = spawn_app().await;
    let note = app.create("Keep", "body").await;
    let with_text = app
        .patch_note(
            &note.id,
            "p1",
            &json!({ "pinned": true, "title": "x", "written_at": AT }),
            &[],
        )
        .await;
    assert_eq!(with_text.status(), 422);
    let stale = app
        .patch_note(
            &note.id,
            "p2",
            &json!({ "pinned": true, "written_at": AT }),
            &[("if-match", "\"7\"")],
        )
        .await;
    assert_eq!(stale.status(), 412);
    assert_eq!(pin(&app, "no-such-note", "p3", true).await.status(), 404);
}

#[tokio::test]
async fn a_late_pin_after_its_key_expired_writes_nothing_new() {
    let app = spawn_app().await;
    let note = app.create("Keep", "body").await;
    pin(&app, &note.id, "p1", true).await;
    sqlx::query("DELETE FROM idempotency_keys")
        .execute(&app.pool)
        .await
        .unwrap();
    let late = pin(&app, &note.id, "p1", true).await;
    assert_eq!(late.status(), 200);
    assert_eq!(late.headers()[IDEMPOTENT_REPLAYED_HEADER], "true");
    assert_eq!(app.revisions(&note.id).await.len(), 2);
}

#[tokio::test]
async fn pinned_notes_list_first_and_the_cursor_walks_both_parts_without_repeats_or_gaps() {
    let app = spawn_app().await;
    let mut made = Vec::new();
    for n in 0..9 {
        made.push(app.create(&format!("n{n}"), "").await);
    }
    for n in [1, 4, 7] {
        assert_eq!(
            pin(&app, &made[n].id, &format!("pin{n}"), true)
                .await
                .status(),
            200
        );
    }
    let mut seen = Vec::new();
    let mut next: Option<String> = None;
    loop {
        let path = match &next {
            None => "/api/notes?limit=2".to_owned(),
            Some(c) => format!("/api/notes?limit=2&cursor={c}"),
        };
        let page: NotesPage = app.get(&path).await.json().await.unwrap();
        seen.extend(page.notes.into_iter().map(|n| (n.title, n.pinned)));
        match page.next {
            Some(c) => next = Some(c),
            None => break,
        }
    }
    let expected: Vec<(String, bool)> = ["n7", "n4", "n1", "n8", "n6", "n5", "n3", "n2", "n0"]
        .iter()
        .map(|t| (t.to_string(), ["n7", "n4", "n1"].contains(t)))
        .collect();
    assert_eq!(seen, expected);
}

#[tokio::test]
async fn a_rename_rewrites_every_note_that_has_the_tag_once_each_and_exactly_once() {
    let app = spawn_app().await;
    let a = app.create("#Work plan", "see #work/Meetings").await;
    let b = app.create("B", "#work and `#work` in code").await;
    let c = app.create("C", "#workshop #home").await;
    let trashed = app.create("D", "#work").await;
    app.delete_note(&trashed.id, "t1", false).await;
    let first = rename(&app, "r1", "work", "Job").await;
    assert_eq!(first.status(), 200);
    let bytes = first.bytes().await.unwrap();
    let answer: TagRenamed = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(answer.renamed, 3, "three notes, one of them in the trash");
    let a_now = app.note(&a.id).await;
    assert_eq!(
        (a_now.title.as_str(), a_now.body.as_str()),
        ("#Job plan", "see #Job/Meetings")
    );
    assert_eq!(a_now.tags, ["job", "job/meetings"]);
    assert_eq!(app.note(&b.id).await.body, "#Job and `#work` in code");
    assert_eq!(app.note(&c.id).await.version, 1, "#workshop is another tag");
    for id in [&a.id, &b.id, &trashed.id] {
        let kinds: Vec<_> = app
            .revisions(id)
            .await
            .into_iter()
            .map(|r| r.kind)
            .collect();
        assert_eq!(
            kinds
                .iter()
                .filter(|k| **k == RevisionKind::TagRename)
                .count(),
            1,
            "{kinds:?}"
        );
    }
    let revisions = app.revision_count().await;
    let again = rename(&app, "r1", "work", "Job").await;
    assert_eq!(again.headers()[IDEMPOTENT_REPLAYED_HEADER], "true");
    assert_eq!(again.bytes().await.unwrap(), bytes);
    // After the key's row expired, the rename is still done once.
    sqlx::query("DELETE FROM idempotency_keys")
        .execute(&app.pool)
        .await
        .unwrap();
    let late = rename(&app, "r1", "work", "Job").await;
    assert_eq!(late.status(), 200);
    let late: TagRenamed = late.json().await.unwrap();
    assert_eq!(late.renamed, 3);
    assert_eq!(
        app.revision_count().await,
        revisions,
        "nothing renamed twice"
    );
    assert_eq!(rename(&app, "r1", "home", "house").await.status(), 422);
    let names: HashSet<String> = tags(&app).await.into_iter().map(|(n, _)| n).collect();
    assert!(
        names.contains("job") && !names.contains("work"),
        "{names:?}"
    );
}

#[tokio::test]
async fn a_rename_with_names_that_are_not_tags_is_422_and_renames_nothing() {
    let app = spawn_app().await;
    let note = app.create("N", "#work").await;
    for (n, (from, to)) in [("work", "a b"), ("", "x"), ("work", "work"), ("work", "12")]
        .into_iter()
        .enumerate()
    {
        let response = rename(&app, &format!("bad-{n}"), from, to).await;
        assert_eq!(response.status(), 422, "{from:?} → {to:?}");
    }
    let no_key = app
        .client
        .post(app.url("/api/tags/rename"))
        .json(&json!({ "from": "work", "to": "job", "written_at": AT }))
        .send()
        .await
        .unwrap();
    assert_eq!(no_key.status(), 400);
    assert_eq!(app.note(&note.id).await.version, 1);
}

#[tokio::test]
async fn tags_of_notes_written_before_tags_existed_are_found_when_the_server_starts() {
    let app = spawn_app().await;
    let note = app.create("Old", "#legacy note").await;
    // As a database migrated from before tags leaves it: no tags found yet.
    sqlx::query("UPDATE notes SET tags = NULL")
        .execute(&app.pool)
        .await
        .unwrap();
    sqlx::query("DELETE FROM note_tags")
        .execute(&app.pool)
        .await
        .unwrap();
    assert_eq!(
        app.note(&note.id).await.tags,
        ["legacy"],
        "read from the text meanwhile"
    );
    // Starting a server on the database finds them (the same client's session works on it).
    let restarted = app.replica_with(|_| {}).await;
    let page: NotesPage = app
        .client
        .get(restarted.url("/api/notes?tag=legacy"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(page.notes.len(), 1);
    let found: Option<String> = sqlx::query_scalar("SELECT tags FROM notes")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(found.as_deref(), Some("legacy"));
}

#[tokio::test]
async fn an_export_carries_pins_and_tags_and_an_import_pins_again_once() {
    let app = spawn_app().await;
    let pinned = app.create("Pinned", "#keep").await;
    app.create("Plain", "").await;
    pin(&app, &pinned.id, "p1", true).await;
    let zip = app.get("/api/export").await.bytes().await.unwrap();
    let bea = app.new_user("bea").await;
    for _ in 0..2 {
        let response = bea
            .post(app.url("/api/import"))
            .header("content-type", "application/zip")
            .body(zip.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
    }
    let page: NotesPage = bea
        .get(app.url("/api/notes"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let listed: Vec<_> = page
        .notes
        .iter()
        .map(|n| (n.title.as_str(), n.pinned, n.tags.clone()))
        .collect();
    assert_eq!(
        listed,
        [
            ("Pinned", true, vec!["keep".to_owned()]),
            ("Plain", false, vec![])
        ]
    );
    let history: Vec<app::api::RevisionSummary> = bea
        .get(app.url(&format!("/api/notes/{}/revisions", page.notes[0].id)))
        .send()
        .await
        .unwrap()
        .json::<app::api::RevisionsPage>()
        .await
        .unwrap()
        .revisions;
    let kinds: Vec<_> = history.into_iter().map(|r| r.kind).collect();
    assert_eq!(
        kinds,
        [RevisionKind::Create, RevisionKind::Pin],
        "pinned once"
    );
}

#[tokio::test]
async fn a_replica_serves_only_after_the_tags_another_replica_is_finding_are_found() {
    if crate::test_db::backend() != crate::test_db::Backend::Postgres {
        return; // One SQLite file has one writer: no replica finds tags beside another.
    }
    let app = spawn_app().await;
    let note = app.create("Old", "#legacy").await;
    sqlx::query("UPDATE notes SET tags = NULL")
        .execute(&app.pool)
        .await
        .unwrap();
    sqlx::query("DELETE FROM note_tags")
        .execute(&app.pool)
        .await
        .unwrap();
    // Another replica is in the middle of filling it in: it holds the row.
    let mut other = app.pool.begin().await.unwrap();
    sqlx::query(&format!(
        "SELECT id FROM notes WHERE id = '{}' FOR UPDATE",
        note.id
    ))
    .execute(&mut *other)
    .await
    .unwrap();
    let starting = {
        let app = &app;
        async move { app.replica_with(|_| {}).await }
    };
    tokio::pin!(starting);
    assert!(
        tokio::time::timeout(std::time::Duration::from_millis(700), &mut starting)
            .await
            .is_err(),
        "the replica started while the old note's tags were still being found"
    );
    sqlx::query(&format!(
        "UPDATE notes SET tags = 'legacy' WHERE id = '{}'",
        note.id
    ))
    .execute(&mut *other)
    .await
    .unwrap();
    sqlx::query(&format!(
        "INSERT INTO note_tags (scope, note_id, tag) SELECT scope, id, 'legacy' FROM notes WHERE id = '{}'",
        note.id
    ))
    .execute(&mut *other)
    .await
    .unwrap();
    other.commit().await.unwrap();
    let replica = tokio::time::timeout(std::time::Duration::from_secs(10), starting)
        .await
        .expect("the replica starts once the tags are found");
    let page: NotesPage = app
        .client
        .get(replica.url("/api/notes?tag=legacy"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(page.notes.len(), 1);
}

#[tokio::test]
async fn a_key_a_rename_used_is_refused_to_another_write_after_its_row_expired() {
    let app = spawn_app().await;
    let note = app.create("N", "#work").await;
    assert_eq!(rename(&app, "r1", "work", "job").await.status(), 200);
    sqlx::query("DELETE FROM idempotency_keys")
        .execute(&app.pool)
        .await
        .unwrap();
    assert_eq!(pin(&app, &note.id, "r1", true).await.status(), 422);
    assert_eq!(app.delete_note(&note.id, "r1", false).await.status(), 422);
    let create = app
        .post_note(Some("r1"), &crate::helpers::note_json("Again"))
        .await;
    assert_eq!(create.status(), 422);
    assert!(!app.note(&note.id).await.pinned);
}

#[tokio::test]
async fn a_note_with_thousands_of_tags_keeps_every_one() {
    let app = spawn_app().await;
    let body: String = (0..1_000).map(|n| format!("#t{n} ")).collect();
    let note = app.create("Many", &body).await;
    assert_eq!(note.tags.len(), 1_000);
    let found: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM note_tags")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(found, 1_000);
    assert_eq!(tags(&app).await.len(), 1_000);
}
