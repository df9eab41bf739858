//! Ticking a task is an edit of its one line (PROTOCOL.md v3, Markdown): with its own key
//! and base version, so two devices ticking different items are both kept, and each tick
//! is one revision.

use app::api::{EditAnswer, EditOutcome, toggle_task};
use serde_json::json;

use crate::helpers::{TestApp, spawn_app};

const LIST: &str = "Shopping\n- [ ] milk\n- [ ] eggs\n- [ ] bread";

async fn tick(app: &TestApp, id: &str, key: &str, body: &str, base: i64) -> EditAnswer {
    let response = app
        .patch_note(
            id,
            key,
            &json!({ "title": "List", "body": body, "base_version": base, "written_at": "2026-12-01T06:00:00.000Z" }),
            &[],
        )
        .await;
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

#[tokio::test]
async fn two_devices_ticking_neighbouring_items_from_the_same_version_are_both_kept() {
    let app = spawn_app().await;
    let note = app.create("List", LIST).await;
    let phone = tick(&app, &note.id, "phone", &toggle_task(LIST, 2).unwrap(), 1).await;
    assert_eq!(phone.outcome, EditOutcome::Applied);
    let laptop = tick(&app, &note.id, "laptop", &toggle_task(LIST, 3).unwrap(), 1).await;
    assert_eq!(laptop.outcome, EditOutcome::Merged);
    assert_eq!(
        app.note(&note.id).await.body,
        "Shopping\n- [x] milk\n- [x] eggs\n- [ ] bread"
    );
    assert_eq!(app.note_count().await, 1, "no conflict copy");
}

#[tokio::test]
async fn a_double_click_is_two_ticks_two_revisions_and_the_box_as_it_started() {
    let app = spawn_app().await;
    let note = app.create("List", LIST).await;
    let on = toggle_task(LIST, 4).unwrap();
    let first = tick(&app, &note.id, "t1", &on, 1).await;
    let off = toggle_task(&on, 4).unwrap();
    let second = tick(
        &app,
        &note.id,
        "t2",
        &off,
        first.note.clone().unwrap().version,
    )
    .await;
    assert_eq!(second.outcome, EditOutcome::Applied);
    // The first tick's answer was lost and it is sent again: its own answer, nothing new.
    let again = tick(&app, &note.id, "t1", &on, 1).await;
    assert_eq!(again, first);
    assert_eq!(app.note(&note.id).await.body, LIST);
    assert_eq!(app.revisions(&note.id).await.len(), 3);
}
