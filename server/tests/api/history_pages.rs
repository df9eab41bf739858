//! A note's history, a page at a time (issue #60: one answer with every version's body grew
//! without bound): `GET /api/notes/{id}/revisions` lists versions without their bodies,
//! oldest first, `next` leading to the rest; `GET /api/notes/{id}/revisions/{version}` is
//! one version with its body. The pages do the same: `/notes/{id}/history` lists versions,
//! newest first, each linked to `/notes/{id}/history/{version}`, which shows its text.
//!
//! The answers are read as JSON values, not as the wire types, so what a page carries (and
//! leaves out) is checked as a client sees it.

use serde_json::{Value, json};

use crate::helpers::{TestApp, problem_of, spawn_app};

/// A note with `versions` versions: created with `body 1`, then edited to `body 2`, ….
async fn note_with_versions(app: &TestApp, versions: i64) -> String {
    let note = app.create("Diary", "body 1").await;
    for version in 2..=versions {
        let response = app
            .patch_note(
                &note.id,
                &uuid::Uuid::new_v4().to_string(),
                &json!({
                    "title": "Diary",
                    "body": format!("body {version}"),
                    "base_version": version - 1,
                    "written_at": "2026-11-30T05:00:00.000Z",
                }),
                &[],
            )
            .await;
        assert_eq!(response.status(), 200, "edit to version {version}");
    }
    note.id
}

async fn json_of(app: &TestApp, path: &str) -> Value {
    let response = app.get(path).await;
    assert_eq!(response.status(), 200, "GET {path}");
    response.json().await.expect("JSON")
}

fn versions_of(page: &Value) -> Vec<i64> {
    page["revisions"]
        .as_array()
        .expect("a list of revisions")
        .iter()
        .map(|r| r["version"].as_i64().expect("a version"))
        .collect()
}

#[tokio::test]
async fn the_history_is_listed_a_page_at_a_time_without_bodies_and_next_walks_every_version() {
    let app = spawn_app().await;
    let id = note_with_versions(&app, 5).await;

    let mut path = format!("/api/notes/{id}/revisions?limit=2");
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let page = json_of(&app, &path).await;
        pages += 1;
        let items = page["revisions"].as_array().expect("revisions");
        assert!(items.len() <= 2, "a page holds at most its limit: {page}");
        for item in items {
            assert!(
                item.get("body").is_none(),
                "a listed version has no body: {item}"
            );
            assert_eq!(item["title"], "Diary");
            assert!(item["created_at"].is_string() && item["kind"].is_string());
        }
        seen.extend(versions_of(&page));
        match page["next"].as_str() {
            Some(next) => path = format!("/api/notes/{id}/revisions?limit=2&cursor={next}"),
            None => {
                assert!(page["next"].is_null(), "the last page says so: {page}");
                break;
            }
        }
        assert!(pages < 10, "next leads somewhere: {page}");
    }
    assert_eq!(seen, [1, 2, 3, 4, 5], "oldest first, each once");
    assert_eq!(pages, 3);

    let first = json_of(&app, &format!("/api/notes/{id}/revisions")).await;
    assert_eq!(versions_of(&first), [1, 2, 3, 4, 5], "50 a page by default");
    assert!(first["next"].is_null());
}

#[tokio::test]
async fn a_versions_body_is_read_on_request_and_404_for_an_unknown_or_someone_elses_version() {
    let app = spawn_app().await;
    let id = note_with_versions(&app, 3).await;

    let second = json_of(&app, &format!("/api/notes/{id}/revisions/2")).await;
    assert_eq!(second["version"], 2);
    assert_eq!(second["title"], "Diary");
    assert_eq!(second["body"], "body 2");
    assert_eq!(second["kind"], "edit");

    for path in [
        format!("/api/notes/{id}/revisions/4"),
        format!("/api/notes/{id}/revisions/0"),
        format!("/api/notes/{id}/revisions/-1"),
        format!("/api/notes/{id}/revisions/two"),
        format!("/api/notes/{id}/revisions/99999999999999999999"),
        "/api/notes/no-such-note/revisions/1".to_owned(),
    ] {
        let response = app.get(&path).await;
        assert_eq!(response.status(), 404, "GET {path}");
        assert_eq!(problem_of(response).await.slug(), "not-found", "GET {path}");
    }

    let bea = app.new_user("bea").await;
    for path in [
        format!("/api/notes/{id}/revisions/1"),
        format!("/api/notes/{id}/revisions"),
    ] {
        let response = bea.get(app.url(&path)).send().await.unwrap();
        assert_eq!(response.status(), 404, "bea: GET {path}");
    }
}

#[tokio::test]
async fn a_bad_limit_or_cursor_of_the_history_is_400_invalid_query() {
    let app = spawn_app().await;
    let id = note_with_versions(&app, 2).await;
    for query in [
        "limit=0",
        "limit=201",
        "limit=ten",
        "cursor=abc",
        "cursor=0",
        "cursor=-3",
        "cursor=1.5",
    ] {
        let response = app.get(&format!("/api/notes/{id}/revisions?{query}")).await;
        assert_eq!(response.status(), 400, "?{query}");
        assert_eq!(
            problem_of(response).await.slug(),
            "invalid-query",
            "?{query}"
        );
    }
    // Past the last version: an empty page of a note that exists, not 404.
    let past = json_of(&app, &format!("/api/notes/{id}/revisions?cursor=7")).await;
    assert_eq!(versions_of(&past), Vec::<i64>::new());
    assert!(past["next"].is_null());
    let unknown = app.get("/api/notes/no-such-note/revisions?cursor=1").await;
    assert_eq!(unknown.status(), 404);
}

#[tokio::test]
async fn the_history_page_lists_versions_newest_first_without_their_bodies_linked_to_each() {
    let app = spawn_app().await;
    let note = app.create("Recipe", "OLD-MARKER first text").await;
    let edited = app
        .patch_note(
            &note.id,
            "edit-1",
            &json!({
                "title": "Recipe",
                "body": "NEW-MARKER second text",
                "base_version": 1,
                "written_at": "2026-11-30T05:00:00.000Z",
            }),
            &[],
        )
        .await;
    assert_eq!(edited.status(), 200);

    let response = app.get(&format!("/notes/{}/history", note.id)).await;
    assert_eq!(response.status(), 200);
    let html = response.text().await.unwrap();
    assert!(
        !html.contains("OLD-MARKER"),
        "an old version's body is not on the page:\n{html}"
    );
    let link = |version: i64| format!(r#"href="/notes/{}/history/{version}""#, note.id);
    let (two, one) = (
        html.find(&link(2)).expect("a link to version 2"),
        html.find(&link(1)).expect("a link to version 1"),
    );
    assert!(two < one, "newest first");
}

#[tokio::test]
async fn the_history_page_links_to_older_versions_past_its_fifty() {
    let app = spawn_app().await;
    let id = note_with_versions(&app, 52).await;
    let html = app
        .get(&format!("/notes/{id}/history"))
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains(&format!(r#"href="/notes/{id}/history/52""#)));
    assert!(html.contains(&format!(r#"href="/notes/{id}/history/3""#)));
    assert!(!html.contains(&format!(r#"href="/notes/{id}/history/2""#)));
    let older = format!(r#"href="/notes/{id}/history?before=3""#);
    assert!(html.contains(&older), "a link to older versions:\n{html}");

    let html = app
        .get(&format!("/notes/{id}/history?before=3"))
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains(&format!(r#"href="/notes/{id}/history/2""#)));
    assert!(html.contains(&format!(r#"href="/notes/{id}/history/1""#)));
    assert!(!html.contains(&format!(r#"href="/notes/{id}/history/3""#)));
    assert!(
        !html.contains("history?before="),
        "no older page after the first version"
    );
}

#[tokio::test]
async fn a_versions_page_shows_its_text_and_offers_to_restore_it() {
    let app = spawn_app().await;
    let id = note_with_versions(&app, 2).await;
    let response = app.get(&format!("/notes/{id}/history/1")).await;
    assert_eq!(response.status(), 200);
    let html = response.text().await.unwrap();
    assert!(html.contains("body 1"), "the version's body:\n{html}");
    assert!(html.contains("Restore this version"), "{html}");
    assert!(html.contains(&format!(r#"href="/notes/{id}/history""#)));

    // The current version is there to read, with nothing to restore.
    let html = app
        .get(&format!("/notes/{id}/history/2"))
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("body 2"));
    assert!(!html.contains("Restore this version"), "{html}");

    for missing in [
        format!("/notes/{id}/history/3"),
        format!("/notes/{id}/history/x"),
    ] {
        let html = app.get(&missing).await.text().await.unwrap();
        assert!(
            html.contains("There is no such version"),
            "{missing}:\n{html}"
        );
    }
}
