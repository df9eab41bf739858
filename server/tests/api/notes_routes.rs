//! Reading notes back: the list (newest first, by cursor), one note, health, and the page.

use app::api::{Note, NotesPage};

use crate::helpers::{note_json, problem_of, spawn_app};

#[tokio::test]
async fn the_list_pages_newest_first_through_every_note_once() {
    let app = spawn_app().await;
    for i in 0..5 {
        app.post_note(Some(&format!("key-{i}")), &note_json(&format!("Note {i}")))
            .await;
    }
    let mut titles = Vec::new();
    let mut url = app.url("/api/notes?limit=2");
    loop {
        let page: NotesPage = app
            .client
            .get(&url)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        titles.extend(page.notes.iter().map(|n| n.title.clone()));
        match page.next {
            Some(cursor) => url = app.url(&format!("/api/notes?limit=2&cursor={cursor}")),
            None => break,
        }
    }
    assert_eq!(titles, ["Note 4", "Note 3", "Note 2", "Note 1", "Note 0"]);
}

#[tokio::test]
async fn bad_list_parameters_are_400_problems() {
    let app = spawn_app().await;
    for query in ["limit=0", "limit=201", "limit=ten", "cursor=forged"] {
        let response = app.get(&format!("/api/notes?{query}")).await;
        assert_eq!(response.status(), 400, "{query}");
        assert_eq!(problem_of(response).await.slug(), "invalid-query");
    }
}

#[tokio::test]
async fn a_note_reads_back_by_id_and_an_unknown_id_is_404() {
    let app = spawn_app().await;
    let created: Note = app
        .post_note(Some("k"), &note_json("Groceries"))
        .await
        .json()
        .await
        .unwrap();
    let fetched: Note = app
        .get(&format!("/api/notes/{}", created.id))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(fetched, created);

    let missing = app.get("/api/notes/does-not-exist").await;
    assert_eq!(missing.status(), 404);
    assert_eq!(problem_of(missing).await.slug(), "not-found");
}

#[tokio::test]
async fn unknown_api_paths_and_methods_answer_with_problems() {
    let app = spawn_app().await;
    let unknown = app.get("/api/nothing-here").await;
    assert_eq!(unknown.status(), 404);
    assert_eq!(problem_of(unknown).await.slug(), "not-found");
    let delete = app
        .client
        .delete(app.url("/api/notes"))
        .send()
        .await
        .unwrap();
    assert_eq!(delete.status(), 405);
    assert_eq!(problem_of(delete).await.slug(), "method-not-allowed");
}

#[tokio::test]
async fn healthz_is_200_while_the_database_answers() {
    let app = spawn_app().await;
    let response = app.get("/healthz").await;
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn the_page_renders_saved_notes_on_the_server_escaped() {
    let app = spawn_app().await;
    app.post_note(Some("k"), &note_json("<script>alert(1)</script> Groceries"))
        .await;
    let html = app.get("/").await.text().await.unwrap();
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt; Groceries"),
        "{html}"
    );
    assert!(!html.contains("<script>alert(1)"));
    assert!(html.contains("<label for=\"note-title\">Title</label>"));
}
