//! The page's form without JavaScript: `POST /notes` with the key the server minted into
//! the rendered form, answered with a redirect back to the page.

use crate::helpers::{TestApp, spawn_app};

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
    let response = send_form(
        &app,
        &[
            ("idempotency_key", &key),
            ("title", "Sent by a form"),
            ("body", "line one\r\nline two"),
        ],
    )
    .await;
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
async fn a_refused_form_gives_the_text_back_with_the_reason_and_a_new_key() {
    let app = spawn_app().await;
    let response = send_form(
        &app,
        &[
            ("idempotency_key", "form-key-2"),
            ("title", "   "),
            ("body", "Keep <this> text"),
        ],
    )
    .await;
    assert_eq!(response.status(), 422);
    let html = response.text().await.unwrap();
    assert!(html.contains("the title is empty"), "{html}");
    assert!(html.contains("Keep &lt;this&gt; text"), "{html}");
    let new_key = rendered_key(&html);
    assert_ne!(new_key, "form-key-2");
    assert_eq!(app.note_count().await, 0);
    let missing_key = send_form(&app, &[("title", "No key"), ("body", "still here")]).await;
    assert_eq!(missing_key.status(), 400);
    assert!(missing_key.text().await.unwrap().contains("still here"));
}
