//! The pages of tags, rendered on the server: `/tags` (every tag, nested ones under their
//! parent) and `/tags/{name}` (a tag's notes, pinned first), and the tags and pins the
//! lists show.

use crate::helpers::spawn_app;

/// Where `needle` first appears in `html` (the test fails if it does not).
fn at(html: &str, needle: &str) -> usize {
    html.find(needle)
        .unwrap_or_else(|| panic!("{needle:?} is not on the page:\n{html}"))
}

async fn pin(app: &crate::helpers::TestApp, id: &str) {
    let response = app
        .patch_note(
            id,
            &uuid::Uuid::new_v4().to_string(),
            &serde_json::json!({"pinned": true, "written_at": "2026-12-01T05:00:00.000Z"}),
            &[],
        )
        .await;
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn the_tags_page_lists_every_tag_with_its_count_and_nested_ones_under_their_parent() {
    let app = spawn_app().await;
    app.create("Plan", "#work and #work/meetings").await;
    app.create("Standup", "notes #Work/Meetings").await;
    app.create("Garden", "#home-and-garden").await;
    let response = app.get("/tags").await;
    assert_eq!(response.status(), 200);
    let html = response.text().await.unwrap();
    let link =
        |name: &str| format!(r#"<a href="/tags/{name}" rel="external" class="tag">#{name}</a>"#);
    let work = at(&html, &link("work"));
    let meetings = at(&html, &link("work/meetings"));
    let garden = at(&html, &link("home-and-garden"));
    assert!(
        garden < work && work < meetings,
        "by name, nested under its parent"
    );
    assert!(
        html[..meetings].ends_with(r#"<li class="tag-item depth-1">"#),
        "{html}"
    );
    assert!(
        html[meetings..].contains("2 notes"),
        "both notes carry work/meetings"
    );
    assert!(
        html[work..meetings].contains("1 note"),
        "one note carries work itself"
    );
}

#[tokio::test]
async fn a_tags_page_lists_its_notes_and_those_nested_under_it_pinned_first() {
    let app = spawn_app().await;
    let plan = app.create("Plan of the week", "#work").await;
    let standup = app.create("Standup notes", "#work/meetings").await;
    app.create("Roses", "#garden").await;
    app.create("Homework", "#workshop is another tag").await;
    pin(&app, &plan.id).await;

    let html = app.get("/tags/work").await.text().await.unwrap();
    at(&html, r##"<h2 id="tag-heading">#work</h2>"##);
    let pinned = at(&html, &format!(r#"data-note-id="{}""#, plan.id));
    let newer = at(&html, &format!(r#"data-note-id="{}""#, standup.id));
    assert!(pinned < newer, "the pinned note first, though older");
    assert!(html[pinned..newer].contains("Pinned"));
    assert!(
        !html.contains("Roses") && !html.contains("Homework"),
        "{html}"
    );
    at(&html, r#"<label for="rename-to">New name</label>"#);

    let nested = app.get("/tags/work/meetings").await.text().await.unwrap();
    at(&nested, r##"<h2 id="tag-heading">#work/meetings</h2>"##);
    at(&nested, "Standup notes");
    assert!(!nested.contains("Plan of the week"), "{nested}");
}

#[tokio::test]
async fn a_tags_page_answers_to_its_name_in_any_case_and_any_percent_encoding() {
    let app = spawn_app().await;
    app.create("Übungen", "#Projekt/Übung").await;
    for path in [
        "/tags/projekt/%C3%BCbung",
        "/tags/Projekt/%C3%9Cbung",
        "/tags/projekt%2F%C3%BCbung",
    ] {
        let html = app.get(path).await.text().await.unwrap();
        at(&html, "#projekt/übung</h2>");
        at(&html, "Übungen");
    }
}

#[tokio::test]
async fn a_tags_page_for_a_name_that_is_no_tag_says_why() {
    let app = spawn_app().await;
    let html = app.get("/tags/a%20b").await.text().await.unwrap();
    at(&html, "There is no such tag");
    at(
        &html,
        "is not a tag: a tag holds letters, digits, _, - and / only",
    );
}

#[tokio::test]
async fn the_notes_list_shows_pinned_notes_first_marked_with_their_tags_as_links() {
    let app = spawn_app().await;
    let older = app.create("Older, pinned", "about #reading").await;
    let newer = app.create("Newer", "plain").await;
    pin(&app, &older.id).await;
    let html = app.get("/").await.text().await.unwrap();
    let first = at(&html, &format!(r#"data-note-id="{}""#, older.id));
    let second = at(&html, &format!(r#"data-note-id="{}""#, newer.id));
    assert!(first < second, "pinned first");
    let card = &html[first..second];
    assert!(
        card.contains(r#"<span class="pin-mark">Pinned</span>"#),
        "{card}"
    );
    assert!(
        card.contains(r##"<a href="/tags/reading" rel="external" class="tag">#reading</a>"##),
        "{card}"
    );
    assert!(card.contains(">Unpin</button>"), "{card}");
    assert!(html[second..].contains(">Pin</button>"));
    // The way to the tags from every page.
    at(&html, r#"<a href="/tags" rel="external">Tags</a>"#);
}
