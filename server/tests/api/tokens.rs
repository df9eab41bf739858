//! Personal access tokens (issue 19, PROTOCOL.md "API tokens"): made once and kept as
//! their digest, listed without their secret, revoked; a bearer works on the notes and
//! their files with the same rules as a session, and never on account management.

use std::time::Duration;

use app::api::{
    IDEMPOTENCY_KEY_HEADER, NotesPage, ProblemSlug, SIGNED_OUT_EVENT, SearchPage, TagList,
    TokenList, TokenMade,
};
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::helpers::{
    ADMIN, ADMIN_PASSWORD, TestApp, anonymous, client_with, note_json, problem_of, session_token,
    spawn_app, spawn_app_with,
};
use crate::live_events::EventStream;

/// Makes a token with the session of `client`.
async fn make_token(app: &TestApp, client: &reqwest::Client, name: &str) -> TokenMade {
    let response = client
        .post(app.url("/api/tokens"))
        .json(&json!({ "name": name }))
        .send()
        .await
        .expect("the server answers");
    assert_eq!(response.status(), 201, "making the token {name:?}");
    assert_eq!(response.headers()["cache-control"], "no-store");
    response.json().await.expect("a made token")
}

/// A client whose every request carries `Authorization: Bearer <token>` (and no cookie).
fn bearer(token: &str) -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::AUTHORIZATION,
        format!("Bearer {token}").parse().expect("a header"),
    );
    reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .default_headers(headers)
        .build()
        .expect("an HTTP client")
}

async fn list(app: &TestApp, client: &reqwest::Client) -> TokenList {
    let response = client.get(app.url("/api/tokens")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    response.json().await.expect("a token list")
}

async fn user_id(app: &TestApp, client: &reqwest::Client) -> String {
    let me: serde_json::Value = client
        .get(app.url("/api/me"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    me["user_id"].as_str().expect("an id").to_owned()
}

fn sha(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

#[tokio::test]
async fn a_token_is_shown_once_and_the_database_keeps_only_its_digest() {
    let app = spawn_app().await;
    let made = make_token(&app, &app.client, "  backup script ").await;
    assert_eq!(made.name, "backup script");
    assert!(made.token.starts_with("onp_") && made.token.len() == 68);

    let rows: Vec<(String, String, String)> =
        sqlx::query_as("SELECT id, name, digest FROM api_tokens")
            .fetch_all(&app.pool)
            .await
            .unwrap();
    assert_eq!(
        rows,
        vec![(
            made.id.clone(),
            made.name.clone(),
            sha(made.token.as_bytes())
        )]
    );
    let holding_the_token: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM api_tokens WHERE id = $1 OR name = $1 OR digest = $1 \
         OR created_at = $1 OR last_used_at = $1",
    )
    .bind(&made.token)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(holding_the_token, 0);

    let second = make_token(&app, &app.client, "phone").await;
    let raw = app.get("/api/tokens").await.text().await.unwrap();
    assert!(!raw.contains(&made.token) && !raw.contains(&second.token));
    assert!(!raw.contains("\"token\""), "{raw}");
    let listed = list(&app, &app.client).await.tokens;
    let names: Vec<&str> = listed.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["phone", "backup script"], "newest first");
    assert_eq!(listed[1].id, made.id);
    assert_eq!(listed[1].created_at, made.created_at);
    assert_eq!(listed[1].last_used_at, None);
}

#[tokio::test]
async fn the_account_page_has_a_labelled_form_for_tokens_and_never_shows_one() {
    let app = spawn_app().await;
    let made = make_token(&app, &app.client, "script").await;
    let page = app.get("/account").await;
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains("Tokens for scripts"), "{html}");
    assert!(html.contains(r#"<label for="token-name">Name of the new token</label>"#));
    assert!(html.contains(r#"id="token-name""#));
    assert!(!html.contains(&made.token));
}

#[tokio::test]
async fn a_bearer_token_reads_and_writes_notes_search_tags_changes_events_and_files() {
    let app = spawn_app().await;
    let script = bearer(&make_token(&app, &app.client, "script").await.token);

    // A write needs its key, as from a session; a retry replays the answer byte for byte.
    let without_key = script
        .post(app.url("/api/notes"))
        .json(&note_json("from a script"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        problem_of(without_key).await.kind,
        ProblemSlug::MissingIdempotencyKey.type_uri()
    );
    let mut answers = Vec::new();
    for _ in 0..2 {
        let response = script
            .post(app.url("/api/notes"))
            .header(IDEMPOTENCY_KEY_HEADER, "script-note-1")
            .json(&json!({ "title": "from a script", "body": "walrus #scripted", "written_at": "2026-11-30T05:00:00.000Z" }))
            .send()
            .await
            .unwrap();
        answers.push((response.status(), response.bytes().await.unwrap()));
    }
    assert_eq!(answers[0].0, 201);
    assert_eq!(answers[0], answers[1], "the retry replays the first answer");
    assert_eq!(app.note_count().await, 1);
    let note: app::api::Note = serde_json::from_slice(&answers[0].1).unwrap();

    let edit = script
        .patch(app.url(&format!("/api/notes/{}", note.id)))
        .header(IDEMPOTENCY_KEY_HEADER, "script-edit-1")
        .json(&json!({ "title": "from a script", "body": "walrus, edited #scripted", "base_version": 1, "written_at": "2026-11-30T05:01:00.000Z" }))
        .send()
        .await
        .unwrap();
    assert_eq!(edit.status(), 200);
    // The session sees what the token wrote: one person.
    assert_eq!(app.note(&note.id).await.body, "walrus, edited #scripted");

    let get = |path: &str| script.get(app.url(path)).send();
    let page: NotesPage = get("/api/notes").await.unwrap().json().await.unwrap();
    assert_eq!(page.notes.len(), 1);
    let found: SearchPage = get("/api/search?q=walrus")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(found.results.len(), 1);
    let tags: TagList = get("/api/tags").await.unwrap().json().await.unwrap();
    assert_eq!(
        serde_json::to_value(&tags).unwrap()["tags"][0]["name"],
        "scripted"
    );
    assert_eq!(get("/api/changes?since=0").await.unwrap().status(), 200);
    assert_eq!(get("/api/trash").await.unwrap().status(), 200);
    let me: serde_json::Value = get("/api/me").await.unwrap().json().await.unwrap();
    assert_eq!(me["username"], ADMIN);
    let mut stream = EventStream::open(&script, &app.address, Some(0), None).await;
    assert_eq!(stream.expect(Duration::from_secs(5)).await.event, "change");

    let bytes = b"bytes a script uploads".to_vec();
    let name = sha(&bytes);
    let put = script
        .put(app.url(&format!("/api/files/{name}")))
        .header("content-type", "text/plain")
        .body(bytes.clone())
        .send()
        .await
        .unwrap();
    assert!(put.status().is_success(), "{}", put.status());
    let file = get(&format!("/files/{name}")).await.unwrap();
    assert_eq!(file.status(), 200);
    assert_eq!(file.bytes().await.unwrap(), bytes);
    assert_eq!(get("/api/files").await.unwrap().status(), 200);
    let export = get("/api/export").await.unwrap();
    assert_eq!(export.status(), 200);
    let zip = export.bytes().await.unwrap();
    let import = || {
        script
            .post(app.url("/api/import"))
            .header("content-type", "application/zip")
            .body(zip.clone())
            .send()
    };
    assert_eq!(import().await.unwrap().status(), 200);
    let after_first = app.note_count().await;
    assert_eq!(import().await.unwrap().status(), 200);
    assert_eq!(
        app.note_count().await,
        after_first,
        "the same export imported twice adds nothing the second time"
    );
}

#[tokio::test]
async fn a_token_is_refused_with_403_on_every_route_of_account_management() {
    let app = spawn_app().await;
    let made = make_token(&app, &app.client, "script").await;
    let script = bearer(&made.token);
    let id = user_id(&app, &app.client).await;
    let password = json!({ "current_password": ADMIN_PASSWORD, "new_password": "a new password" });
    let routes: Vec<(reqwest::Method, String, serde_json::Value)> = vec![
        (
            reqwest::Method::POST,
            "/api/session".into(),
            json!({ "username": ADMIN, "password": ADMIN_PASSWORD }),
        ),
        (reqwest::Method::DELETE, "/api/session".into(), json!({})),
        (reqwest::Method::PUT, "/api/me/password".into(), password),
        (reqwest::Method::GET, "/api/tokens".into(), json!({})),
        (
            reqwest::Method::POST,
            "/api/tokens".into(),
            json!({ "name": "another" }),
        ),
        (
            reqwest::Method::DELETE,
            format!("/api/tokens/{}", made.id),
            json!({}),
        ),
        (reqwest::Method::POST, "/api/invitations".into(), json!({})),
        (
            reqwest::Method::POST,
            "/api/invitations/x/accept".into(),
            json!({ "username": "eve", "password": "password of eve" }),
        ),
        (reqwest::Method::GET, "/api/users".into(), json!({})),
        (
            reqwest::Method::POST,
            "/api/users".into(),
            json!({ "username": "eve", "password": "password of eve" }),
        ),
        (
            reqwest::Method::POST,
            format!("/api/users/{id}/disable"),
            json!({}),
        ),
        (reqwest::Method::POST, "/api/setup".into(), json!({})),
        (reqwest::Method::GET, "/account".into(), json!({})),
    ];
    for (method, path, body) in routes {
        let response = script
            .request(method.clone(), app.url(&path))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 403, "{method} {path}");
        assert_eq!(
            problem_of(response).await.kind,
            ProblemSlug::TokenNotAllowed.type_uri(),
            "{method} {path}"
        );
    }
    // Nothing of the account changed: the password, the tokens, the people.
    app.sign_in(ADMIN, ADMIN_PASSWORD).await;
    assert_eq!(list(&app, &app.client).await.tokens.len(), 1);
    let people: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM users")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(people, 1);
    assert_eq!(
        script
            .get(app.url("/api/notes"))
            .send()
            .await
            .unwrap()
            .status(),
        200,
        "the token still works where it may"
    );
}

#[tokio::test]
async fn a_revoked_mistyped_or_garbled_token_is_401_and_never_falls_back_to_the_cookie() {
    let app = spawn_app().await;
    let made = make_token(&app, &app.client, "script").await;
    let unknown = format!("onp_{}", "0".repeat(64));
    let garbage = [
        "nope",
        unknown.as_str(),
        &made.token[..67],
        &made.token.to_uppercase(),
    ];
    let check = |response: reqwest::Response, what: String| async move {
        assert_eq!(response.status(), 401, "{what}");
        let challenge = response.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .to_owned();
        assert!(challenge.starts_with("Bearer"), "{what}: {challenge}");
        assert_eq!(
            problem_of(response).await.kind,
            ProblemSlug::InvalidToken.type_uri(),
            "{what}"
        );
    };
    for token in garbage {
        // `app.client` carries the admin's session cookie as well: it is not used.
        let response = app
            .client
            .get(app.url("/api/notes"))
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        check(response, format!("token {token:?}")).await;
    }
    for header in ["Bearer", "Bearer ", "Bearer a b"] {
        let response = app
            .client
            .get(app.url("/api/notes"))
            .header("authorization", header)
            .send()
            .await
            .unwrap();
        check(response, format!("header {header:?}")).await;
    }

    let script = bearer(&made.token);
    assert_eq!(
        script
            .get(app.url("/api/notes"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    let revoked = app
        .client
        .delete(app.url(&format!("/api/tokens/{}", made.id)))
        .send()
        .await
        .unwrap();
    assert_eq!(revoked.status(), 204);
    let after = script.get(app.url("/api/notes")).send().await.unwrap();
    check(after, "after revoking".into()).await;
    let again = app
        .client
        .delete(app.url(&format!("/api/tokens/{}", made.id)))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 404, "revoked already");
    assert!(list(&app, &app.client).await.tokens.is_empty());
}

#[tokio::test]
async fn a_cross_site_post_passes_with_a_bearer_and_is_refused_with_a_cookie() {
    let app = spawn_app().await;
    let script = bearer(&make_token(&app, &app.client, "script").await.token);
    let post = |client: &reqwest::Client, key: &str| {
        client
            .post(app.url("/api/notes"))
            .header("sec-fetch-site", "cross-site")
            .header("origin", "https://elsewhere.example")
            .header(IDEMPOTENCY_KEY_HEADER, key)
            .json(&note_json("cross-site"))
            .send()
    };
    let with_cookie = post(&app.client, "cross-cookie").await.unwrap();
    assert_eq!(with_cookie.status(), 403);
    assert_eq!(
        problem_of(with_cookie).await.kind,
        ProblemSlug::CrossSiteRequest.type_uri()
    );
    assert_eq!(post(&script, "cross-bearer").await.unwrap().status(), 201);
    assert_eq!(app.note_count().await, 1);
}

#[tokio::test]
async fn a_token_of_one_person_never_reads_writes_or_revokes_for_another() {
    let app = spawn_app().await;
    let bea = app.new_user("bea").await;
    let bea_note: app::api::Note = bea
        .post(app.url("/api/notes"))
        .header(IDEMPOTENCY_KEY_HEADER, "bea-1")
        .json(&note_json("bea's note"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let bea_token = make_token(&app, &bea, "bea's script").await;
    let admin_token = make_token(&app, &app.client, "admin's script").await;
    let script = bearer(&admin_token.token);

    let page: NotesPage = script
        .get(app.url("/api/notes"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(page.notes.is_empty());
    let path = format!("/api/notes/{}", bea_note.id);
    assert_eq!(
        script.get(app.url(&path)).send().await.unwrap().status(),
        404
    );
    let edit = script
        .patch(app.url(&path))
        .header(IDEMPOTENCY_KEY_HEADER, "admin-edits-bea")
        .json(&json!({ "title": "taken", "body": "x", "base_version": 1, "written_at": "2026-11-30T05:00:00.000Z" }))
        .send()
        .await
        .unwrap();
    assert_eq!(edit.status(), 404);
    let found: SearchPage = script
        .get(app.url("/api/search?q=bea"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(found.results.is_empty());

    // Neither lists nor revokes the other's tokens; the answer is the same as for none.
    let listed = list(&app, &app.client).await.tokens;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].id, admin_token.id);
    let revoke = app
        .client
        .delete(app.url(&format!("/api/tokens/{}", bea_token.id)))
        .send()
        .await
        .unwrap();
    assert_eq!(revoke.status(), 404);
    assert_eq!(
        problem_of(revoke).await.detail,
        format!("you have no token with the id {:?}", bea_token.id)
    );
    let bea_script = bearer(&bea_token.token);
    let bea_page: NotesPage = bea_script
        .get(app.url("/api/notes"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let ids: Vec<&str> = bea_page.notes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(ids, [bea_note.id.as_str()]);
}

#[tokio::test]
async fn a_disabled_persons_tokens_stop_working_and_stay_revoked_when_enabled_again() {
    let app = spawn_app().await;
    let bea = app.new_user("bea").await;
    let bea_id = user_id(&app, &bea).await;
    let script = bearer(&make_token(&app, &bea, "bea's script").await.token);
    assert_eq!(
        script
            .get(app.url("/api/notes"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );

    let disable = app
        .client
        .post(app.url(&format!("/api/users/{bea_id}/disable")))
        .send()
        .await
        .unwrap();
    assert!(disable.status().is_success(), "{}", disable.status());
    assert_eq!(
        script
            .get(app.url("/api/notes"))
            .send()
            .await
            .unwrap()
            .status(),
        401
    );

    let enable = app
        .client
        .post(app.url(&format!("/api/users/{bea_id}/enable")))
        .send()
        .await
        .unwrap();
    assert!(enable.status().is_success(), "{}", enable.status());
    assert_eq!(
        script
            .get(app.url("/api/notes"))
            .send()
            .await
            .unwrap()
            .status(),
        401
    );
}

#[tokio::test]
async fn a_token_notes_when_it_was_last_used() {
    let app = spawn_app().await;
    let made = make_token(&app, &app.client, "script").await;
    assert_eq!(list(&app, &app.client).await.tokens[0].last_used_at, None);
    let script = bearer(&made.token);
    for _ in 0..3 {
        assert_eq!(
            script
                .get(app.url("/api/tags"))
                .send()
                .await
                .unwrap()
                .status(),
            200
        );
    }
    // Written off the request's path: it shows within moments.
    let mut last_used = None;
    for _ in 0..50 {
        last_used = list(&app, &app.client).await.tokens[0].last_used_at.clone();
        if last_used.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let last_used = last_used.expect("the token's last use is noted");
    assert!(
        last_used >= made.created_at,
        "{last_used} < {}",
        made.created_at
    );
    // Within the minute, more requests write nothing more.
    assert_eq!(
        script
            .get(app.url("/api/tags"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        list(&app, &app.client).await.tokens[0]
            .last_used_at
            .as_deref(),
        Some(last_used.as_str())
    );
}

#[tokio::test]
async fn sixty_creates_at_once_never_take_a_person_past_the_cap() {
    let cap = server::accounts::api_tokens::TOKENS_PER_PERSON;
    let app = spawn_app().await;
    let creates = (0..60).map(|n| {
        app.client
            .post(app.url("/api/tokens"))
            .json(&json!({ "name": format!("script {n}") }))
            .send()
    });
    let answers = futures::future::join_all(creates).await;
    let mut made = 0;
    for answer in answers {
        let answer = answer.unwrap();
        match answer.status().as_u16() {
            201 => made += 1,
            409 => assert_eq!(
                problem_of(answer).await.kind,
                ProblemSlug::TooManyTokens.type_uri()
            ),
            // A database busy past its wait makes nothing; the cap is what matters here.
            503 => {}
            other => panic!("unexpected {other}"),
        }
    }
    let rows = || async {
        sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM api_tokens")
            .fetch_one(&app.pool)
            .await
            .unwrap()
    };
    assert!(made <= cap, "{made} made");
    assert_eq!(rows().await, i64::try_from(made).unwrap());
    // Filled up one at a time, the cap is exactly where it says.
    while made < cap {
        make_token(&app, &app.client, "one more").await;
        made += 1;
    }
    let past = app
        .client
        .post(app.url("/api/tokens"))
        .json(&json!({ "name": "past the cap" }))
        .send()
        .await
        .unwrap();
    assert_eq!(past.status(), 409);
    assert_eq!(rows().await, i64::try_from(cap).unwrap());
}

#[tokio::test]
async fn a_token_name_must_be_one_line_of_1_to_100_characters() {
    let app = spawn_app().await;
    for name in [
        String::new(),
        "   ".into(),
        "x".repeat(101),
        "two\nlines".into(),
        "bell\u{7}".into(),
    ] {
        let response = app
            .client
            .post(app.url("/api/tokens"))
            .json(&json!({ "name": name }))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 422, "{name:?}");
        assert_eq!(
            problem_of(response).await.kind,
            ProblemSlug::ValidationFailed.type_uri()
        );
    }
    assert_eq!(
        make_token(&app, &app.client, &"ü".repeat(100))
            .await
            .name
            .chars()
            .count(),
        100
    );
    let rows: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM api_tokens")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(rows, 1);
    let anonymous = anonymous()
        .post(app.url("/api/tokens"))
        .json(&json!({ "name": "no one's" }))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 401);
}

#[tokio::test]
async fn revoking_a_token_ends_the_live_stream_it_opened() {
    let app = spawn_app().await;
    let made = make_token(&app, &app.client, "follower").await;
    let mut stream = EventStream::open(&bearer(&made.token), &app.address, None, None).await;
    let revoked = app
        .client
        .delete(app.url(&format!("/api/tokens/{}", made.id)))
        .send()
        .await
        .unwrap();
    assert_eq!(revoked.status(), 204);
    assert_eq!(
        stream.expect(Duration::from_secs(10)).await.event,
        SIGNED_OUT_EVENT
    );
}

#[tokio::test]
async fn a_token_shares_its_persons_limits_with_their_sessions() {
    let app = spawn_app_with(|config| config.streams_per_person = 1).await;
    let script = bearer(&make_token(&app, &app.client, "follower").await.token);
    let _browser = EventStream::open(&app.client, &app.address, None, None).await;
    let refused = EventStream::request(&script, &app.address, None, None).await;
    assert_eq!(refused.status(), 429);
    assert_eq!(
        problem_of(refused).await.kind,
        ProblemSlug::TooManyStreams.type_uri()
    );
}

/// Changes the admin's password with the session of `client`; returns the new session.
async fn change_password(app: &TestApp, client: &reqwest::Client, from: &str, to: &str) -> String {
    let changed = client
        .put(app.url("/api/me/password"))
        .json(&json!({ "current_password": from, "new_password": to }))
        .send()
        .await
        .unwrap();
    assert_eq!(changed.status(), 204, "changing the password");
    session_token(&changed).expect("a new session")
}

/// The status of a bearer's read of the notes.
async fn reads_notes(app: &TestApp, token: &str) -> u16 {
    bearer(token)
        .get(app.url("/api/notes"))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test]
async fn a_password_change_ends_the_tokens_other_sessions_made_and_keeps_its_own() {
    let app = spawn_app().await;
    // A stolen session mints a token without knowing the password...
    let thief = client_with(&app.sign_in(ADMIN, ADMIN_PASSWORD).await);
    let stolen = make_token(&app, &thief, "not mine").await;
    let mut follower = EventStream::open(&bearer(&stolen.token), &app.address, None, None).await;
    let own = make_token(&app, &app.client, "backup script").await;
    // ...and the password changed from the person's own session takes it back.
    let fresh = change_password(&app, &app.client, ADMIN_PASSWORD, "a new long password").await;

    let refused = bearer(&stolen.token)
        .get(app.url("/api/notes"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        refused.status(),
        401,
        "the token another session made ended"
    );
    assert_eq!(
        problem_of(refused).await.kind,
        ProblemSlug::InvalidToken.type_uri()
    );
    assert_eq!(
        follower.expect(Duration::from_secs(10)).await.event,
        SIGNED_OUT_EVENT,
        "its live stream ended with it"
    );
    assert_eq!(
        reads_notes(&app, &own.token).await,
        200,
        "the person's own token stays"
    );
    let names: Vec<String> = list(&app, &client_with(&fresh))
        .await
        .tokens
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["backup script"]);

    // The token kept is the person's: a later change from the new session keeps it too.
    change_password(
        &app,
        &client_with(&fresh),
        "a new long password",
        "a third password",
    )
    .await;
    assert_eq!(
        reads_notes(&app, &own.token).await,
        200,
        "kept through the next change"
    );
}

#[tokio::test]
async fn a_token_of_unknown_origin_ends_at_the_next_password_change() {
    let app = spawn_app().await;
    let own = make_token(&app, &app.client, "from before the upgrade").await;
    // Made before tokens recorded the session that made them: it may be a thief's.
    sqlx::query("UPDATE api_tokens SET made_by = NULL")
        .execute(&app.pool)
        .await
        .unwrap();
    change_password(&app, &app.client, ADMIN_PASSWORD, "a new long password").await;
    assert_eq!(reads_notes(&app, &own.token).await, 401);
}

#[tokio::test]
async fn a_token_kept_through_one_change_ends_at_a_change_made_from_another_session() {
    let app = spawn_app().await;
    // A thief holding the person's very session mints a token with it: the change the
    // person makes from that session cannot tell it from theirs, and keeps it...
    let minted = make_token(&app, &app.client, "minted with my own cookie").await;
    let fresh = change_password(&app, &app.client, ADMIN_PASSWORD, "a new long password").await;
    assert_eq!(reads_notes(&app, &minted.token).await, 200);
    // ...but only for the session that change started: the next change, made from
    // another device, ends it (a token kept once was once kept for good).
    let elsewhere = client_with(&app.sign_in(ADMIN, "a new long password").await);
    change_password(&app, &elsewhere, "a new long password", "a third password").await;
    assert_eq!(reads_notes(&app, &minted.token).await, 401);
    drop(fresh);
}
