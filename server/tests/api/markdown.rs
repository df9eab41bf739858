//! A note's body rendered (PROTOCOL.md v3, Markdown) through the real server: `html` on a
//! note read by its id and on every write's answer about one note, never on lists or
//! search results; safe for every body of the script corpus (`html_safety`), in the API
//! and on the note's page.

use app::api::{EditAnswer, EditOutcome, IDEMPOTENT_REPLAYED_HEADER, Note};

use crate::helpers::{TestApp, spawn_app};
use crate::html_safety::{CORPUS, assert_safe};

const WHEN: &str = "2026-11-30T05:00:00.000Z";

fn note_with(title: &str, body: &str) -> serde_json::Value {
    serde_json::json!({ "title": title, "body": body, "written_at": WHEN })
}

/// Creates a note with this body; its create answer.
async fn created(app: &TestApp, body: &str) -> Note {
    let response = app
        .post_note(
            Some(&uuid::Uuid::new_v4().to_string()),
            &note_with("Corpus", body),
        )
        .await;
    assert_eq!(response.status(), 201, "{body:?}");
    response.json().await.expect("a note")
}

/// Panics unless no `html` key appears anywhere in `value`.
fn assert_no_html(what: &str, value: &serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            assert!(!map.contains_key("html"), "{what} carries html: {value}");
            map.values().for_each(|v| assert_no_html(what, v));
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| assert_no_html(what, v)),
        _ => {}
    }
}

#[tokio::test]
async fn every_corpus_body_comes_back_as_typed_with_safe_html_when_created_and_read() {
    let app = spawn_app().await;
    for (case, body) in CORPUS {
        let note = created(&app, body).await;
        assert_eq!(note.body, *body, "{case}: the body is stored as typed");
        let html = note
            .html
            .as_deref()
            .expect("the create answer carries html");
        assert_safe(case, html);
        let read = app.note(&note.id).await;
        assert_eq!(
            read.html.as_deref(),
            Some(html),
            "{case}: read back the same"
        );
        assert_eq!(read.body, *body, "{case}");
    }
}

#[tokio::test]
async fn the_create_answer_carries_html_and_its_replay_is_the_same_bytes() {
    let app = spawn_app().await;
    let request = note_with(
        "Rendered",
        "- [ ] **milk** #shop\n- [x] https://example.com",
    );
    let first = app.post_note(Some("render-key"), &request).await;
    assert_eq!(first.status(), 201);
    let first = first.bytes().await.unwrap();
    let note: Note = serde_json::from_slice(&first).unwrap();
    assert_eq!(
        note.html.as_deref(),
        Some(
            "<ul>\n<li class=\"task\"><input type=\"checkbox\" data-line=\"1\" disabled=\"\">\n\
             <strong>milk</strong> <a href=\"/tags/shop\" class=\"tag\" \
             rel=\"noopener noreferrer nofollow\">#shop</a></li>\n\
             <li class=\"task\"><input type=\"checkbox\" data-line=\"2\" disabled=\"\" checked=\"\">\n\
             <a href=\"https://example.com\" rel=\"noopener noreferrer nofollow\">https://example.com</a></li>\n\
             </ul>\n"
        )
    );
    let again = app.post_note(Some("render-key"), &request).await;
    assert_eq!(again.status(), 201);
    assert_eq!(again.headers()[IDEMPOTENT_REPLAYED_HEADER], "true");
    assert_eq!(
        again.bytes().await.unwrap(),
        first,
        "the replay is byte for byte"
    );
}

#[tokio::test]
async fn lists_trash_and_search_results_carry_no_html() {
    let app = spawn_app().await;
    let kept = app.create("Kept", "**findable** words #listed").await;
    let trashed = app.create("Trashed", "**findable** too").await;
    let response = app.delete_note(&trashed.id, "trash-it", false).await;
    assert_eq!(response.status(), 200);
    for (path, listed) in [
        ("/api/notes", &kept.id),
        ("/api/notes?tag=listed", &kept.id),
        ("/api/trash", &trashed.id),
        ("/api/search?q=findable", &kept.id),
    ] {
        let response = app.get(path).await;
        assert_eq!(response.status(), 200, "{path}");
        let value: serde_json::Value = response.json().await.unwrap();
        assert!(
            value.to_string().contains(listed.as_str()),
            "{path}: {value}"
        );
        assert_no_html(path, &value);
    }
}

#[tokio::test]
async fn every_write_answer_about_one_note_carries_its_html() {
    let app = spawn_app().await;
    let note = app.create("Plan", "one\ntwo\n").await;
    assert_eq!(note.html.as_deref(), Some("<p>one<br>\ntwo</p>\n"));

    let edit = |body: &str, base: i64| serde_json::json!({ "title": "Plan", "body": body, "base_version": base, "written_at": WHEN });
    let answer: EditAnswer = app
        .patch_note(&note.id, "edit-a", &edit("one\n*two*\n", 1), &[])
        .await
        .json()
        .await
        .unwrap();
    let now = answer.note.unwrap();
    assert_eq!(now.html.as_deref(), Some("<p>one<br>\n<em>two</em></p>\n"));

    let conflict: EditAnswer = app
        .patch_note(&note.id, "edit-b", &edit("one\n**two**\n", 1), &[])
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(conflict.outcome, EditOutcome::ConflictCopy);
    assert_eq!(
        conflict.note.unwrap().html.as_deref(),
        Some("<p>one<br>\n<em>two</em></p>\n")
    );
    assert_eq!(
        conflict.copy.unwrap().html.as_deref(),
        Some("<p>one<br>\n<strong>two</strong></p>\n")
    );

    let pin = serde_json::json!({ "pinned": true, "written_at": WHEN });
    let pinned: serde_json::Value = app
        .patch_note(&note.id, "pin-it", &pin, &[])
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(pinned["note"]["html"], "<p>one<br>\n<em>two</em></p>\n");

    let trashed: serde_json::Value = app
        .delete_note(&note.id, "trash-it", false)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(trashed["note"]["html"], "<p>one<br>\n<em>two</em></p>\n");
    let restored: serde_json::Value = app
        .restore_note(&note.id, "restore-it")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(restored["note"]["html"], "<p>one<br>\n<em>two</em></p>\n");
}

/// The stretch of a page between the corpus markers' paragraphs, if the page holds them.
fn between_markers(page: &str) -> Option<&str> {
    let start = page.find(START)? + START.len();
    let end = start + page[start..].find(END)?;
    Some(&page[start..end])
}

const START: &str = "<p>oncenote-corpus-start</p>";
const END: &str = "<p>oncenote-corpus-end</p>";

#[tokio::test]
async fn the_note_page_shows_the_rendered_body_and_nothing_unsafe_from_the_corpus() {
    let app = spawn_app().await;
    for (case, body) in CORPUS {
        let marked = format!("oncenote-corpus-start\n\n{body}\n\noncenote-corpus-end");
        let note = created(&app, &marked).await;
        let html = note.html.unwrap();
        let rendered = between_markers(&html).expect("the markers render as paragraphs");
        let response = app.get(&format!("/notes/{}", note.id)).await;
        assert_eq!(response.status(), 200, "{case}");
        let page = response.text().await.unwrap();
        let shown = between_markers(&page).unwrap_or_else(|| {
            panic!("{case}: the note page shows the note's html (app/src/pages/note.rs): {page}")
        });
        assert_eq!(
            shown, rendered,
            "{case}: the page shows the html as rendered"
        );
        assert_safe(case, shown);
    }
}
