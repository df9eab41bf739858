//! A token is made only for a session that still stands when it is stored: the session is
//! checked when the request arrives, but its body may come much later (up to the body
//! timeout, paced by the sender), and a session ended meanwhile — the person disabled,
//! signed out — must not mint a token that outlives it.

use crate::helpers::{TestApp, spawn_app};

/// Opens `POST /api/tokens` with `session`, runs `meanwhile` once the server reads the
/// body, then sends the body: the answer's status.
async fn create_with_body_after(
    app: &TestApp,
    session: &str,
    meanwhile: impl std::future::Future<Output = ()>,
) -> u16 {
    let body = br#"{"name":"sent slowly"}"#;
    let head = format!(
        "POST /api/tokens HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: oncenote_session={session}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nExpect: 100-continue\r\n\r\n",
        body.len()
    );
    app.send_raw_body_after(head.as_bytes(), meanwhile, body)
        .await
        .status
}

async fn token_rows(app: &TestApp) -> i64 {
    sqlx::query_scalar("SELECT COUNT(*) FROM api_tokens")
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

async fn user_id(app: &TestApp, username: &str) -> String {
    sqlx::query_scalar("SELECT id FROM users WHERE username = $1")
        .bind(username)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_person_disabled_while_the_body_arrives_gets_401_and_no_token() {
    let app = spawn_app().await;
    app.new_user("bea").await;
    let session = app.sign_in("bea", "password of a user").await;
    let bea_id = user_id(&app, "bea").await;

    let status = create_with_body_after(&app, &session, async {
        let disable = app
            .client
            .post(app.url(&format!("/api/users/{bea_id}/disable")))
            .send()
            .await
            .unwrap();
        assert!(disable.status().is_success(), "{}", disable.status());
    })
    .await;
    assert_eq!(status, 401);
    assert_eq!(token_rows(&app).await, 0);

    let enable = app
        .client
        .post(app.url(&format!("/api/users/{bea_id}/enable")))
        .send()
        .await
        .unwrap();
    assert!(enable.status().is_success(), "{}", enable.status());
    assert_eq!(token_rows(&app).await, 0, "enabling brings no token back");
}

#[tokio::test]
async fn a_session_signed_out_while_the_body_arrives_gets_401_and_no_token() {
    let app = spawn_app().await;
    app.new_user("bea").await;
    let session = app.sign_in("bea", "password of a user").await;
    let signed_out = crate::helpers::client_with(&session);

    let status = create_with_body_after(&app, &session, async {
        let out = signed_out
            .delete(app.url("/api/session"))
            .send()
            .await
            .unwrap();
        assert!(out.status().is_success(), "{}", out.status());
    })
    .await;
    assert_eq!(status, 401);
    assert_eq!(token_rows(&app).await, 0);
}

#[tokio::test]
async fn a_session_that_stands_while_the_body_arrives_makes_its_token() {
    let app = spawn_app().await;
    app.new_user("bea").await;
    let session = app.sign_in("bea", "password of a user").await;

    let status = create_with_body_after(&app, &session, async {}).await;
    assert_eq!(status, 201);
    assert_eq!(token_rows(&app).await, 1);
}
