//! A tag rename and everyone else's writes: its notes are read and renamed before it
//! takes the database's writer, so another person's save goes through while it works;
//! and it rewrites at most `ONCENOTE_RENAME_MAX_CHARS` of text, refusing more whole.

use std::time::{Duration, Instant};

use app::api::{IDEMPOTENCY_KEY_HEADER, NotesPage};
use serde_json::json;

use crate::helpers::{TestApp, problem_of, spawn_app_with};

const AT: &str = "2026-12-01T06:00:00.000Z";

async fn rename(client: &reqwest::Client, app: &TestApp, key: &str) -> reqwest::Response {
    client
        .post(app.url("/api/tags/rename"))
        .header(IDEMPOTENCY_KEY_HEADER, key)
        .json(&json!({ "from": "work", "to": "job", "written_at": AT }))
        .send()
        .await
        .expect("the server answers")
}

/// A long note's body: paragraphs of words, links and `#work` now and then — what the
/// rename parses as Markdown and looks through for tags.
fn long_body(n: usize, chars: usize) -> String {
    let paragraph = format!(
        "Note {n}: the plan for the week, see https://example.com/{n} and #work items. \
         **Decisions** were made; _some_ were not. #work/meetings follow.\n\n"
    );
    paragraph.repeat(chars / paragraph.len())
}

async fn versions(app: &TestApp) -> Vec<i64> {
    let page: NotesPage = app.get("/api/notes?limit=200").await.json().await.unwrap();
    page.notes.iter().map(|n| n.version).collect()
}

#[tokio::test]
async fn another_person_s_save_goes_through_while_a_large_rename_works_out_its_notes() {
    let app = spawn_app_with(|c| c.rename_max_chars = 100_000_000).await;
    for n in 0..120 {
        app.create(&format!("Long {n}"), &long_body(n, 40_000))
            .await;
    }
    let bea = app.new_user("bea").await;
    let started = Instant::now();
    let renaming = tokio::spawn({
        let client = app.client.clone();
        let url = app.url("/api/tags/rename");
        async move {
            let answer = client
                .post(url)
                .header(IDEMPOTENCY_KEY_HEADER, "big-rename")
                .json(&json!({ "from": "work", "to": "job", "written_at": AT }))
                .timeout(Duration::from_secs(600))
                .send()
                .await
                .unwrap();
            (answer.status(), Instant::now())
        }
    });
    // The rename is under way: it reads and parses 4.8 MB of Markdown.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let saved = bea
        .post(app.url("/api/notes"))
        .header(IDEMPOTENCY_KEY_HEADER, "bea-1")
        .json(&json!({ "title": "Bea's", "body": "meanwhile", "written_at": AT }))
        .send()
        .await
        .unwrap();
    let bea_done = Instant::now();
    assert_eq!(saved.status(), 201);
    let (renamed, rename_done) = renaming.await.unwrap();
    assert_eq!(renamed, 200);
    eprintln!(
        "Bea's save answered after {:?}, the rename after {:?}",
        bea_done - started,
        rename_done - started
    );
    // Before: the rename parsed every note inside the writer, and Bea's save waited
    // behind all of it.
    assert!(
        bea_done < rename_done,
        "Bea's save waited for the whole rename ({:?} after it began)",
        bea_done - started
    );
}

#[tokio::test]
async fn a_rename_past_its_bound_renames_nothing_and_the_same_key_renames_once_it_fits() {
    let app = spawn_app_with(|c| c.rename_max_chars = 1_000).await;
    let mut ids = Vec::new();
    for n in 0..3 {
        ids.push(
            app.create(&format!("N{n}"), &format!("#work {}", "x".repeat(390)))
                .await
                .id,
        );
    }
    let refused = rename(&app.client, &app, "bounded").await;
    assert_eq!(refused.status(), 422);
    let problem = problem_of(refused).await;
    assert_eq!(problem.slug(), "rename-too-large");
    assert!(problem.detail.contains("3 notes"), "{}", problem.detail);
    assert_eq!(versions(&app).await, [1, 1, 1], "nothing was renamed");

    // One note deleted for good (a note in the trash counts: the rename rewrites it too):
    // the same key now fits, and renames once.
    let gone = app
        .client
        .delete(app.url(&format!("/api/notes/{}?permanent=true", ids[0])))
        .header(IDEMPOTENCY_KEY_HEADER, "purge-0")
        .send()
        .await
        .unwrap();
    assert!(gone.status().is_success(), "{}", gone.status());
    let renamed = rename(&app.client, &app, "bounded").await;
    assert_eq!(renamed.status(), 200);
    assert_eq!(versions(&app).await, [2, 2]);
    let again = rename(&app.client, &app, "bounded").await;
    assert_eq!(again.status(), 200);
    assert_eq!(versions(&app).await, [2, 2], "renamed once");
}
