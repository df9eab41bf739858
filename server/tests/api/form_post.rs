//! The page's form without JavaScript: `POST /notes` with the key the server minted into
//! the rendered form, answered with a redirect back to the page.

use std::time::Duration;

use crate::helpers::{TestApp, spawn_app, spawn_app_with};

/// A signed-in client that does not follow redirects.
fn no_redirects(app: &TestApp) -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    if let Some(token) = &app.session {
        headers.insert(
            reqwest::header::COOKIE,
            format!("oncenote_session={token}").parse().unwrap(),
        );
    }
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .default_headers(headers)
        .build()
        .unwrap()
}

async fn send_form(app: &TestApp, fields: &[(&str, &str)]) -> reqwest::Response {
    no_redirects(app)
        .post(app.url("/notes"))
        .form(fields)
        .send()
        .await
        .unwrap()
}

/// The page's form sent with `key`, `title` and `body`.
async fn send_note(app: &TestApp, key: &str, title: &str, body: &str) -> reqwest::Response {
    send_form(
        app,
        &[("idempotency_key", key), ("title", title), ("body", body)],
    )
    .await
}

/// The key in the hidden field of the page's form.
fn rendered_key(html: &str) -> String {
    let at = html
        .find(r#"name="idempotency_key""#)
        .expect("the form has a key field");
    let tag_start = html[..at].rfind('<').unwrap();
    let tag = &html[tag_start..at + html[at..].find('>').unwrap()];
    let value = tag.split("value=\"").nth(1).expect("a value");
    value[..value.find('"').unwrap()].to_owned()
}

#[tokio::test]
async fn the_page_renders_a_fresh_key_into_its_form_each_time() {
    let app = spawn_app().await;
    let first = rendered_key(&app.get("/").await.text().await.unwrap());
    let second = rendered_key(&app.get("/").await.text().await.unwrap());
    assert!(uuid::Uuid::parse_str(&first).is_ok(), "{first}");
    assert_ne!(first, second);
}

#[tokio::test]
async fn a_form_sent_without_javascript_stores_the_note_and_redirects_to_the_page() {
    let app = spawn_app().await;
    let key = rendered_key(&app.get("/").await.text().await.unwrap());
    let response = send_note(&app, &key, "Sent by a form", "line one\r\nline two").await;
    assert_eq!(response.status(), 303);
    assert_eq!(response.headers()["location"], "/");
    let stored: (String, String) = sqlx::query_as("SELECT title, body FROM notes")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(
        stored,
        ("Sent by a form".into(), "line one\nline two".into()),
        "line breaks are stored as the app's own saves store them"
    );
    let page = app.get("/").await.text().await.unwrap();
    assert!(page.contains("Sent by a form"));
}

#[tokio::test]
async fn the_same_rendered_form_sent_twice_stores_one_note() {
    let app = spawn_app().await;
    let fields = [
        ("idempotency_key", "form-key-1"),
        ("title", "Twice"),
        ("body", "b"),
    ];
    let first = send_form(&app, &fields).await;
    let again = send_form(&app, &fields).await;
    assert_eq!(first.status(), 303);
    assert_eq!(again.status(), 303);
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    assert_eq!(app.note_count().await, 1);
}

#[tokio::test]
async fn a_refused_form_gives_the_text_back_with_the_reason_and_its_key_which_then_saves_the_mended_text()
 {
    let app = spawn_app().await;
    let response = send_note(&app, "form-key-2", "   ", "Keep <this> text").await;
    assert_eq!(response.status(), 422);
    let html = response.text().await.unwrap();
    assert!(html.contains("the title is empty"), "{html}");
    assert!(html.contains("Keep &lt;this&gt; text"), "{html}");
    assert_eq!(
        rendered_key(&html),
        "form-key-2",
        "nothing is stored under the key"
    );
    assert_eq!(app.note_count().await, 0);
    let mended = send_note(&app, "form-key-2", "Mended", "Keep <this> text").await;
    assert_eq!(mended.status(), 303);
    assert_eq!(app.note_count().await, 1);

    let missing_key = send_form(&app, &[("title", "No key"), ("body", "still here")]).await;
    assert_eq!(missing_key.status(), 400);
    let html = missing_key.text().await.unwrap();
    assert!(html.contains("still here"));
    assert!(
        uuid::Uuid::parse_str(&rendered_key(&html)).is_ok(),
        "a new key"
    );
}

/// Sending the form again while its first send is still being saved (a reload, a second
/// press on a slow server) is 409; the page it gives must keep the key, or sending that
/// page's form once the first send has finished stores the note a second time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_form_sent_again_while_its_first_send_is_saving_keeps_its_key_and_the_note_is_stored_once()
 {
    let app = spawn_app_with(|config| config.key_wait = Duration::from_millis(200)).await;
    app.db.slow_down_note_inserts(&app.pool).await;
    let fields = [
        ("idempotency_key", "form-key-3"),
        ("title", "Slow"),
        ("body", "saved once"),
    ];
    let first = send_form(&app, &fields);
    let again = async {
        // Let the first send take the key and start its slow insert.
        tokio::time::sleep(Duration::from_millis(100)).await;
        send_form(&app, &fields).await
    };
    let (first, again) = tokio::join!(first, again);
    // On a loaded machine the second send may reach the key first: one of them is
    // stored, the other is told the key is in use.
    let mut statuses = [first.status().as_u16(), again.status().as_u16()];
    statuses.sort_unstable();
    assert_eq!(statuses, [303, 409]);
    let in_use = if first.status() == 409 { first } else { again };
    let html = in_use.text().await.unwrap();
    assert!(html.contains("still being saved"), "{html}");
    assert!(
        html.contains("saved once"),
        "the text is given back: {html}"
    );
    let key = rendered_key(&html);
    assert_eq!(key, "form-key-3");

    let resent = send_note(&app, &key, "Slow", "saved once").await;
    assert_eq!(resent.status(), 303);
    assert_eq!(resent.headers()["idempotent-replayed"], "true");
    assert_eq!(app.note_count().await, 1);
}

/// A key that already saved another text cannot save this one: the page says so and gives
/// a new key, which saves the text as a note of its own.
#[tokio::test]
async fn a_form_whose_key_saved_another_text_gets_a_new_key_for_this_one() {
    let app = spawn_app().await;
    let first = [
        ("idempotency_key", "form-key-4"),
        ("title", "First"),
        ("body", "a"),
    ];
    assert_eq!(send_form(&app, &first).await.status(), 303);
    let other = [
        ("idempotency_key", "form-key-4"),
        ("title", "Second"),
        ("body", "b"),
    ];
    let refused = send_form(&app, &other).await;
    assert_eq!(refused.status(), 422);
    let html = refused.text().await.unwrap();
    assert!(html.contains("already saved a different text"), "{html}");
    let key = rendered_key(&html);
    assert_ne!(key, "form-key-4");
    let saved = send_note(&app, &key, "Second", "b").await;
    assert_eq!(saved.status(), 303);
    assert_eq!(app.note_count().await, 2);
}

/// A server failure leaves it unknown whether the note was stored: the page says so and
/// keeps the key, and the form sent again once the server is back stores the note once.
#[tokio::test]
async fn a_form_refused_by_a_busy_database_keeps_its_key_and_says_the_save_is_not_confirmed() {
    let app = spawn_app_with(|config| config.key_wait = Duration::from_millis(300)).await;
    let mut holder = app.db.hold_the_write_lock().await;
    let fields = [
        ("idempotency_key", "form-key-5"),
        ("title", "Busy"),
        ("body", "sent while another writer held the lock"),
    ];
    let refused = send_form(&app, &fields).await;
    assert_eq!(refused.status(), 503);
    let html = refused.text().await.unwrap();
    assert!(html.contains("Not confirmed"), "{html}");
    assert!(!html.contains("Not saved"), "{html}");
    assert_eq!(rendered_key(&html), "form-key-5");

    sqlx::Executor::execute(&mut holder, "ROLLBACK")
        .await
        .unwrap();
    let resent = send_form(&app, &fields).await;
    assert_eq!(resent.status(), 303);
    assert_eq!(app.note_count().await, 1);
}

/// The key goes back into the page as the form sent it: a quoted key (which the server
/// reads unquoted) sent again from the page is the same key.
#[tokio::test]
async fn a_quoted_key_comes_back_as_sent_and_stays_the_same_key() {
    let app = spawn_app().await;
    let quoted = "\"form-key-6\"";
    let refused = send_note(&app, quoted, " ", "b").await;
    assert_eq!(refused.status(), 422);
    let html = refused.text().await.unwrap();
    assert_eq!(rendered_key(&html).replace("&quot;", "\""), quoted);
    let stored = [
        ("idempotency_key", quoted),
        ("title", "Quoted"),
        ("body", "b"),
    ];
    assert_eq!(send_form(&app, &stored).await.status(), 303);
    let plain = [
        ("idempotency_key", "form-key-6"),
        ("title", "Quoted"),
        ("body", "b"),
    ];
    let again = send_form(&app, &plain).await;
    assert_eq!(again.status(), 303);
    assert_eq!(
        again.headers()["idempotent-replayed"],
        "true",
        "one key, quoted or not"
    );
    assert_eq!(app.note_count().await, 1);
}

/// A full disk (507) leaves the form its key and says to send it again once there is
/// room; sent then, the note is stored once.
#[tokio::test]
async fn a_form_refused_by_a_full_disk_keeps_its_key_and_says_to_send_it_again_once_there_is_room()
{
    if crate::test_db::backend() != crate::test_db::Backend::Sqlite {
        return; // PostgreSQL's disk_full cannot be made here (see database_failures).
    }
    const PAGES: u32 = 1_000;
    let app = spawn_app_with(|config| config.sqlite_max_pages = Some(PAGES)).await;
    crate::database_failures::fill_the_disk(&app, PAGES).await;
    let body = "x".repeat(20_000);
    let fields = [
        ("idempotency_key", "form-key-7"),
        ("title", "Full"),
        ("body", body.as_str()),
    ];
    let refused = send_form(&app, &fields).await;
    assert_eq!(refused.status(), 507);
    let html = refused.text().await.unwrap();
    assert!(
        html.contains(
            "Once there is room, send the form again, unchanged: the note is stored once"
        ),
        "{html}"
    );
    assert_eq!(rendered_key(&html), "form-key-7");

    sqlx::query("DELETE FROM filler")
        .execute(&app.pool)
        .await
        .unwrap();
    assert_eq!(send_form(&app, &fields).await.status(), 303);
    assert_eq!(app.note_count().await, 1);
}
