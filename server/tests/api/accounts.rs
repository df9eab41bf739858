//! Accounts: each person's notes are theirs alone, the promise holds per person, a fresh
//! install is open to no one, and sign-in resists guessing and forged requests.

use std::time::Duration;

use app::api::{IDEMPOTENT_REPLAYED_HEADER, Note};
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::helpers::{
    ADMIN, ADMIN_PASSWORD, TestApp, anonymous, client_with, note_json, problem_of, session_token,
    spawn_app, spawn_app_with,
};
use crate::test_db::Backend;

async fn create(
    client: &reqwest::Client,
    app: &TestApp,
    key: &str,
    title: &str,
) -> reqwest::Response {
    client
        .post(app.url("/api/notes"))
        .header("idempotency-key", key)
        .json(&note_json(title))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn two_users_with_the_same_key_make_two_notes_and_each_replay_goes_to_its_owner() {
    let app = spawn_app().await;
    let bea = app.new_user("bea").await;
    let for_admin = create(&app.client, &app, "shared-key", "Same words").await;
    let for_bea = create(&bea, &app, "shared-key", "Same words").await;
    assert_eq!(
        (for_admin.status().as_u16(), for_bea.status().as_u16()),
        (201, 201)
    );
    let (admin_note, bea_note): (Note, Note) = (
        for_admin.json().await.unwrap(),
        for_bea.json().await.unwrap(),
    );
    assert_ne!(admin_note.id, bea_note.id);

    let again = create(&bea, &app, "shared-key", "Same words").await;
    assert_eq!(again.headers()[IDEMPOTENT_REPLAYED_HEADER], "true");
    assert_eq!(again.json::<Note>().await.unwrap().id, bea_note.id);
    assert_eq!(app.note_count().await, 2);
}

#[tokio::test]
async fn another_users_note_is_404_on_every_route_and_never_listed_or_found() {
    let app = spawn_app().await;
    let note = app.create("Admin's secret", "the word xylophone").await;
    app.delete_note(&app.create("Admin's trash", "t").await.id, "t1", false)
        .await;
    let bea = app.new_user("bea").await;
    let id = &note.id;
    let send = |request: reqwest::RequestBuilder| async {
        request
            .header("idempotency-key", uuid::Uuid::new_v4().to_string())
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    };
    let edit = json!({ "title": "x", "body": "y", "base_version": 1, "written_at": "2026-11-30T05:00:00Z" });
    assert_eq!(
        send(bea.get(app.url(&format!("/api/notes/{id}")))).await,
        404
    );
    assert_eq!(
        send(bea.patch(app.url(&format!("/api/notes/{id}"))).json(&edit)).await,
        404
    );
    assert_eq!(
        send(bea.delete(app.url(&format!("/api/notes/{id}")))).await,
        404
    );
    assert_eq!(
        send(bea.delete(app.url(&format!("/api/notes/{id}?permanent=true")))).await,
        404
    );
    assert_eq!(
        send(bea.post(app.url(&format!("/api/notes/{id}/restore")))).await,
        404
    );
    assert_eq!(
        send(bea.get(app.url(&format!("/api/notes/{id}/revisions")))).await,
        404
    );
    let list: serde_json::Value = bea
        .get(app.url("/api/notes"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list["notes"].as_array().unwrap().len(), 0);
    let trash: serde_json::Value = bea
        .get(app.url("/api/trash"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(trash["notes"].as_array().unwrap().len(), 0);
    let found: serde_json::Value = bea
        .get(app.url("/api/search?q=xylophone"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(found["results"].as_array().unwrap().len(), 0);
    // The admin's note is untouched.
    let now: Note = app
        .get(&format!("/api/notes/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!((now.version, now.trashed_at), (1, None));
}

#[tokio::test]
async fn requests_without_a_session_are_401_and_store_nothing() {
    let app = spawn_app().await;
    let note = app.create("Kept", "b").await;
    let (notes, keys, revisions) = (
        app.note_count().await,
        app.key_count().await,
        app.revision_count().await,
    );
    let stranger = anonymous();
    let id = &note.id;
    let requests = [
        stranger.get(app.url("/api/notes")),
        stranger.post(app.url("/api/notes")).json(&note_json("x")),
        stranger.get(app.url(&format!("/api/notes/{id}"))),
        stranger
            .patch(app.url(&format!("/api/notes/{id}")))
            .json(&json!({"body": "x", "base_version": 1, "written_at": "2026-11-30T05:00:00Z"})),
        stranger.delete(app.url(&format!("/api/notes/{id}"))),
        stranger.post(app.url(&format!("/api/notes/{id}/restore"))),
        stranger.get(app.url(&format!("/api/notes/{id}/revisions"))),
        stranger.get(app.url("/api/trash")),
        stranger.get(app.url("/api/search?q=kept")),
        stranger.get(app.url("/api/me")),
        stranger.get(app.url("/api/export")),
        stranger.post(app.url("/api/invitations")),
        stranger.get(app.url("/api/users")),
    ];
    for request in requests {
        let response = request.header("idempotency-key", "k").send().await.unwrap();
        let url = response.url().to_string();
        assert_eq!(response.status(), 401, "{url}");
        assert_eq!(
            problem_of(response).await.slug(),
            "unauthenticated",
            "{url}"
        );
    }
    assert_eq!(
        (
            app.note_count().await,
            app.key_count().await,
            app.revision_count().await
        ),
        (notes, keys, revisions)
    );
}

#[tokio::test]
async fn a_state_changing_request_from_another_site_is_refused_before_anything_runs() {
    let app = spawn_app().await;
    let from = |site: &str, origin: Option<&str>| {
        let mut request = app
            .client
            .post(app.url("/api/notes"))
            .header("idempotency-key", uuid::Uuid::new_v4().to_string())
            .json(&note_json("Forged?"));
        if !site.is_empty() {
            request = request.header("sec-fetch-site", site);
        }
        if let Some(origin) = origin {
            request = request.header("origin", origin);
        }
        request.send()
    };
    let forged = from("cross-site", None).await.unwrap();
    assert_eq!(forged.status(), 403);
    assert_eq!(problem_of(forged).await.slug(), "cross-site-request");
    assert_eq!(from("same-site", None).await.unwrap().status(), 403);
    assert_eq!(
        from("", Some("https://evil.example"))
            .await
            .unwrap()
            .status(),
        403
    );
    assert_eq!(app.note_count().await, 0);
    assert_eq!(from("same-origin", None).await.unwrap().status(), 201);
    // Signing in from another site's form (login CSRF) is refused too.
    let login = anonymous()
        .post(app.url("/sign-in"))
        .header("sec-fetch-site", "cross-site")
        .form(&[("username", ADMIN), ("password", ADMIN_PASSWORD)])
        .send()
        .await
        .unwrap();
    assert_eq!(login.status(), 403);
}

#[tokio::test]
async fn a_wrong_password_and_an_unknown_user_get_the_same_answer() {
    let app = spawn_app().await;
    let sign_in = |username: &'static str, password: &'static str| {
        anonymous()
            .post(app.url("/api/session"))
            .json(&json!({ "username": username, "password": password }))
            .send()
    };
    let wrong = sign_in(ADMIN, "not the password").await.unwrap();
    let unknown = sign_in("nobody", "not the password").await.unwrap();
    assert_eq!(
        (wrong.status().as_u16(), unknown.status().as_u16()),
        (401, 401)
    );
    let (wrong, unknown) = (problem_of(wrong).await, problem_of(unknown).await);
    assert_eq!(wrong.slug(), "invalid-credentials");
    assert_eq!(wrong, unknown);
}

#[tokio::test]
async fn too_many_failed_sign_ins_lock_the_account_with_retry_after_then_it_opens_again() {
    let app = spawn_app_with(|c| {
        c.sign_in_max_failures = 3;
        c.sign_in_lockout = Duration::from_secs(2);
    })
    .await;
    let attempt = |password: &'static str| {
        anonymous()
            .post(app.url("/api/session"))
            .json(&json!({ "username": ADMIN, "password": password }))
            .send()
    };
    for _ in 0..2 {
        assert_eq!(attempt("guess").await.unwrap().status(), 401);
    }
    // The failure that reaches the limit is told so at once.
    assert_eq!(attempt("guess").await.unwrap().status(), 429);
    let locked = attempt(ADMIN_PASSWORD).await.unwrap();
    assert_eq!(locked.status(), 429, "locked even with the right password");
    let retry: u64 = locked.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=2).contains(&retry), "{retry}");
    let problem = problem_of(locked).await;
    assert_eq!(problem.slug(), "too-many-attempts");
    assert!(problem.detail.contains("try again"), "{}", problem.detail);

    tokio::time::sleep(Duration::from_millis(2_100)).await;
    assert_eq!(attempt(ADMIN_PASSWORD).await.unwrap().status(), 204);
    // A success clears the count: three more failures are needed to lock again.
    for _ in 0..2 {
        assert_eq!(attempt("guess").await.unwrap().status(), 401);
    }
    assert_eq!(attempt(ADMIN_PASSWORD).await.unwrap().status(), 204);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixteen_concurrent_first_admin_setups_make_exactly_one_admin() {
    let app = spawn_app_with(|c| c.admin = None).await;
    let token = "a-setup-token-printed-at-start";
    sqlx::query(
        "INSERT INTO setup_tokens (token_hash, created_at) VALUES ($1, '2026-11-30T05:00:00Z')",
    )
    .bind(hex::encode(Sha256::digest(token.as_bytes())))
    .execute(&app.pool)
    .await
    .unwrap();
    let setups = (0..16).map(|n| {
        anonymous()
            .post(app.url("/api/setup"))
            .json(&json!({ "token": token, "username": format!("admin{n}"), "password": "a long password" }))
            .send()
    });
    let answers = futures::future::join_all(setups).await;
    let statuses: Vec<u16> = answers
        .iter()
        .map(|a| a.as_ref().unwrap().status().as_u16())
        .collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        1,
        "{statuses:?}"
    );
    assert!(
        statuses.iter().all(|s| *s == 201 || *s == 410 || *s == 403),
        "{statuses:?}"
    );
    let admins: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM users WHERE is_admin")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    let users: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM users")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!((admins, users), (1, 1));
}

#[tokio::test]
async fn the_notes_from_before_accounts_go_to_the_first_admin() {
    let app = spawn_app_with(|c| c.admin = None).await;
    // The search column differs: SQLite keeps CJK bigrams, PostgreSQL a tsvector.
    let (column, value) = match app.db.backend {
        Backend::Sqlite => ("cjk", "''"),
        Backend::Postgres => ("search", "to_tsvector('simple', 'from before accounts')"),
    };
    sqlx::query(&format!(
        "INSERT INTO notes (id, scope, idempotency_key, request_fingerprint, title, body, written_at, \
         created_at, updated_at, version, {column}) VALUES ('0b7a3c52-6f0e-4c51-9a0e-4a0c8f7e2d11', 'shared', \
         'old-key', 'f', 'From before accounts', 'b', '2026-01-01T00:00:00.000Z', \
         '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z', 1, {value})"
    ))
    .execute(&app.pool)
    .await
    .unwrap();
    let token = "setup-token";
    sqlx::query("INSERT INTO setup_tokens (token_hash, created_at) VALUES ($1, 'now')")
        .bind(hex::encode(Sha256::digest(token.as_bytes())))
        .execute(&app.pool)
        .await
        .unwrap();
    let setup = anonymous()
        .post(app.url("/api/setup"))
        .json(&json!({ "token": token, "username": "first", "password": "a long password" }))
        .send()
        .await
        .unwrap();
    assert_eq!(setup.status(), 201);
    let admin = client_with(&session_token(&setup).unwrap());
    let list: serde_json::Value = admin
        .get(app.url("/api/notes"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list["notes"][0]["title"], "From before accounts");
    // Search finds it too: the search index follows the note to its new scope.
    let found: serde_json::Value = admin
        .get(app.url("/api/search?q=before"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(found["results"][0]["note"]["title"], "From before accounts");
    let wrong = anonymous()
        .post(app.url("/api/setup"))
        .json(&json!({ "token": token, "username": "second", "password": "a long password" }))
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 410);
}

#[tokio::test]
async fn a_fresh_install_is_open_to_no_one_and_sends_its_pages_to_the_setup() {
    let app = spawn_app_with(|c| c.admin = None).await;
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let home = no_redirects.get(app.url("/")).send().await.unwrap();
    assert_eq!(home.status(), 303);
    assert_eq!(home.headers()["location"], "/setup");
    let bad_link = anonymous()
        .post(app.url("/api/setup"))
        .json(&json!({ "token": "guessed", "username": "mallory", "password": "a long password" }))
        .send()
        .await
        .unwrap();
    assert_eq!(bad_link.status(), 403);
    assert_eq!(problem_of(bad_link).await.slug(), "setup-link-invalid");
    assert_eq!(
        anonymous()
            .get(app.url("/api/notes"))
            .send()
            .await
            .unwrap()
            .status(),
        401
    );
}

#[tokio::test]
async fn pages_send_a_stranger_to_sign_in_and_back_where_they_were_going() {
    let app = spawn_app().await;
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let page = no_redirects
        .get(app.url("/notes/abc?x=1"))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 303);
    assert_eq!(
        page.headers()["location"],
        "/sign-in?next=%2Fnotes%2Fabc%3Fx%3D1"
    );
    let signed_in = no_redirects
        .post(app.url("/sign-in"))
        .form(&[
            ("username", ADMIN),
            ("password", ADMIN_PASSWORD),
            ("next", "/notes/abc?x=1"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(signed_in.status(), 303);
    assert_eq!(signed_in.headers()["location"], "/notes/abc?x=1");
    let cookie = signed_in.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );
    let wrong = no_redirects
        .post(app.url("/sign-in"))
        .form(&[
            ("username", ADMIN),
            ("password", "nope"),
            ("next", "//evil.example"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(
        wrong.headers()["location"],
        "/sign-in?next=%2F&error=invalid-credentials"
    );
}

#[tokio::test]
async fn the_session_cookie_is_secure_when_people_use_https() {
    let app = spawn_app_with(|c| c.public_url = Some("https://notes.example.com".into())).await;
    let response = anonymous()
        .post(app.url("/api/session"))
        .json(&json!({ "username": ADMIN, "password": ADMIN_PASSWORD }))
        .send()
        .await
        .unwrap();
    let cookie = response.headers()["set-cookie"].to_str().unwrap();
    assert!(cookie.ends_with("; Secure"), "{cookie}");
    // The __Host- prefix: no other host can set or shadow it, and it is read back.
    let token = cookie
        .strip_prefix("__Host-oncenote_session=")
        .expect("the session cookie has the __Host- prefix over HTTPS")
        .split(';')
        .next()
        .unwrap();
    let me = |cookie: String| {
        anonymous()
            .get(app.url("/api/me"))
            .header("cookie", cookie)
            .send()
    };
    assert_eq!(
        me(format!("__Host-oncenote_session={token}"))
            .await
            .unwrap()
            .status(),
        200
    );
    // Over HTTPS a plain cookie is not believed: a sibling subdomain or a plain-HTTP page
    // could have planted it.
    assert_eq!(
        me(format!("oncenote_session={token}"))
            .await
            .unwrap()
            .status(),
        401
    );
}

#[tokio::test]
async fn signing_in_again_replaces_the_session_token() {
    let app = spawn_app().await;
    let old = app.session.clone().unwrap();
    let response = client_with(&old)
        .post(app.url("/api/session"))
        .json(&json!({ "username": ADMIN, "password": ADMIN_PASSWORD }))
        .send()
        .await
        .unwrap();
    let new = session_token(&response).unwrap();
    assert_ne!(new, old);
    assert_eq!(
        client_with(&old)
            .get(app.url("/api/me"))
            .send()
            .await
            .unwrap()
            .status(),
        401
    );
    assert_eq!(
        client_with(&new)
            .get(app.url("/api/me"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
}

#[tokio::test]
async fn an_invitation_works_once_and_not_after_it_expires() {
    let app = spawn_app().await;
    let invite = || async {
        let response = app
            .client
            .post(app.url("/api/invitations"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 201);
        let body: serde_json::Value = response.json().await.unwrap();
        assert!(
            body["url"]
                .as_str()
                .unwrap()
                .ends_with(body["token"].as_str().unwrap())
        );
        body["token"].as_str().unwrap().to_owned()
    };
    let accept = |token: String, username: &'static str| {
        let url = app.url(&format!("/api/invitations/{token}/accept"));
        async move {
            anonymous()
                .post(url)
                .json(&json!({ "username": username, "password": "a long password" }))
                .send()
                .await
                .unwrap()
        }
    };
    let token = invite().await;
    assert_eq!(accept(token.clone(), "cleo").await.status(), 201);
    let again = accept(token, "dan").await;
    assert_eq!(again.status(), 410);
    assert_eq!(problem_of(again).await.slug(), "invitation-gone");

    let expired = invite().await;
    sqlx::query("UPDATE invitations SET expires_at = '2000-01-01T00:00:00Z' WHERE used_at IS NULL")
        .execute(&app.pool)
        .await
        .unwrap();
    assert_eq!(accept(expired, "erin").await.status(), 410);
    let taken = invite().await;
    assert_eq!(
        accept(taken, "CLEO").await.status(),
        409,
        "usernames ignore case"
    );
}

#[tokio::test]
async fn changing_the_password_ends_every_other_session() {
    let app = spawn_app().await;
    let other = client_with(&app.sign_in(ADMIN, ADMIN_PASSWORD).await);
    let changed = app
        .client
        .put(app.url("/api/me/password"))
        .json(&json!({ "current_password": ADMIN_PASSWORD, "new_password": "a new long password" }))
        .send()
        .await
        .unwrap();
    assert_eq!(changed.status(), 204);
    let fresh = client_with(&session_token(&changed).unwrap());
    assert_eq!(
        other.get(app.url("/api/me")).send().await.unwrap().status(),
        401
    );
    assert_eq!(
        app.client
            .get(app.url("/api/me"))
            .send()
            .await
            .unwrap()
            .status(),
        401
    );
    assert_eq!(
        fresh.get(app.url("/api/me")).send().await.unwrap().status(),
        200
    );
    let wrong = fresh
        .put(app.url("/api/me/password"))
        .json(&json!({ "current_password": "not it", "new_password": "whatever long" }))
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 403);
}

#[tokio::test]
async fn signup_is_closed_unless_opened_by_setting() {
    let closed = spawn_app().await;
    let attempt = |app: &TestApp| {
        anonymous()
            .post(app.url("/api/users"))
            .json(&json!({ "username": "walk-in", "password": "a long password" }))
            .send()
    };
    let refused = attempt(&closed).await.unwrap();
    assert_eq!(refused.status(), 403);
    assert_eq!(problem_of(refused).await.slug(), "signup-closed");
    let open = spawn_app_with(|c| c.signup_open = true).await;
    assert_eq!(attempt(&open).await.unwrap().status(), 201);
}

#[tokio::test]
async fn the_sign_up_form_makes_an_account_only_where_signup_is_open() {
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let send = |app: &TestApp| {
        no_redirects
            .post(app.url("/sign-up"))
            .form(&[("username", "walk-in"), ("password", "a long password")])
            .send()
    };
    let closed = spawn_app().await;
    let refused = send(&closed).await.unwrap();
    assert_eq!(refused.status(), 303);
    assert_eq!(
        refused.headers()["location"],
        "/sign-up?error=signup-closed"
    );
    assert!(refused.headers().get("set-cookie").is_none());
    let page = closed.get("/sign-in").await.text().await.unwrap();
    assert!(
        page.contains("Ask the person who runs this server"),
        "the sign-in page offers no sign-up"
    );

    let open = spawn_app_with(|c| c.signup_open = true).await;
    let page = anonymous()
        .get(open.url("/sign-in"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("href=\"/sign-up\""),
        "the sign-in page links to the sign-up"
    );
    let made = send(&open).await.unwrap();
    assert_eq!(made.status(), 303);
    assert_eq!(made.headers()["location"], "/");
    let token = session_token(&made).expect("signed in at once");
    let me: serde_json::Value = client_with(&token)
        .get(open.url("/api/me"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(me["username"], "walk-in");
    assert_eq!(me["admin"], false);
}

#[tokio::test]
async fn an_admin_lists_and_disables_users_and_a_disabled_user_is_out() {
    let app = spawn_app().await;
    let bea = app.new_user("bea").await;
    assert_eq!(
        bea.get(app.url("/api/users"))
            .send()
            .await
            .unwrap()
            .status(),
        403
    );
    assert_eq!(
        bea.post(app.url("/api/invitations"))
            .send()
            .await
            .unwrap()
            .status(),
        403
    );
    let users: serde_json::Value = app
        .client
        .get(app.url("/api/users"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let bea_id = users["users"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["username"] == "bea")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let disabled = app
        .client
        .post(app.url(&format!("/api/users/{bea_id}/disable")))
        .send()
        .await
        .unwrap();
    assert_eq!(disabled.status(), 204);
    assert_eq!(
        bea.get(app.url("/api/me")).send().await.unwrap().status(),
        401
    );
    let sign_in = anonymous()
        .post(app.url("/api/session"))
        .json(&json!({ "username": "bea", "password": "password of a user" }))
        .send()
        .await
        .unwrap();
    assert_eq!(sign_in.status(), 401);
}

#[tokio::test]
async fn an_export_imported_twice_adds_its_notes_once() {
    let app = spawn_app().await;
    app.create("First", "one").await;
    let trashed = app.create("In the trash", "two").await;
    app.delete_note(&trashed.id, "t", false).await;
    let export = app.get("/api/export").await;
    assert_eq!(export.headers()["content-type"], "application/zip");
    let zip = export.bytes().await.unwrap();

    let bea = app.new_user("bea").await;
    let import = |client: &reqwest::Client| {
        client
            .post(app.url("/api/import"))
            .header("content-type", "application/zip")
            .body(zip.clone())
            .send()
    };
    let first: serde_json::Value = import(&bea).await.unwrap().json().await.unwrap();
    assert_eq!(
        (first["imported"].as_u64(), first["already_there"].as_u64()),
        (Some(2), Some(0))
    );
    let second: serde_json::Value = import(&bea).await.unwrap().json().await.unwrap();
    assert_eq!(
        (
            second["imported"].as_u64(),
            second["already_there"].as_u64()
        ),
        (Some(0), Some(2))
    );
    let live: serde_json::Value = bea
        .get(app.url("/api/notes"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(live["notes"].as_array().unwrap().len(), 1);
    let trash: serde_json::Value = bea
        .get(app.url("/api/trash"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(trash["notes"][0]["title"], "In the trash");
    let not_a_zip = bea
        .post(app.url("/api/import"))
        .header("content-type", "application/zip")
        .body("hello")
        .send()
        .await
        .unwrap();
    assert_eq!(not_a_zip.status(), 415, "no export of a kind we read");
}

#[tokio::test]
async fn expired_sessions_are_swept_from_the_database() {
    let app = spawn_app_with(|c| c.sweep_interval = Duration::from_secs(1)).await;
    let user: String = sqlx::query_scalar("SELECT id FROM users LIMIT 1")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO sessions (token_hash, user_id, created_at, last_seen_at, expires_at) \
         VALUES ('old', $1, '2020-01-01T00:00:00.000Z', '2020-01-01T00:00:00.000Z', '2020-01-31T00:00:00.000Z')",
    )
    .bind(&user)
    .execute(&app.pool)
    .await
    .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let left: i64 =
            sqlx::query_scalar("SELECT count(*) FROM sessions WHERE token_hash = 'old'")
                .fetch_one(&app.pool)
                .await
                .unwrap();
        if left == 0 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the expired session was never swept"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The live session is untouched.
    assert_eq!(app.get("/api/me").await.status(), 200);
}

#[tokio::test]
async fn a_session_in_use_is_kept_alive_in_the_database_and_in_the_browser() {
    let app = spawn_app().await;
    let token = app.session.clone().expect("signed in");
    // Just signed in: nothing to renew.
    let fresh = app.get("/api/me").await;
    assert!(fresh.headers().get("set-cookie").is_none());

    sqlx::query("UPDATE sessions SET last_seen_at = '2020-01-01T00:00:00.000Z', expires_at = '2999-01-01T00:00:00.000Z'")
        .execute(&app.pool)
        .await
        .unwrap();
    let used = app.get("/api/me").await;
    assert_eq!(used.status(), 200);
    let renewed = used.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(
        renewed.starts_with(&format!("oncenote_session={token};")),
        "{renewed}"
    );
    assert!(
        renewed.contains(&format!("Max-Age={}", 30 * 86_400)),
        "{renewed}"
    );
    assert!(
        renewed.contains("HttpOnly") && renewed.contains("SameSite=Lax"),
        "{renewed}"
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let seen: String = sqlx::query_scalar("SELECT last_seen_at FROM sessions")
            .fetch_one(&app.pool)
            .await
            .unwrap();
        if !seen.starts_with("2020") {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the session was never kept alive"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn the_invitation_link_on_the_people_page_is_whole_before_any_script_runs() {
    let app = spawn_app().await;
    let page = app
        .get("/admin?invitation=abc123")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains(&format!("{}/invite/abc123", app.address)),
        "the server-rendered link names this server: {page}"
    );

    let public = crate::helpers::spawn_app_with(|config| {
        config.public_url = Some("https://notes.example.com".into());
    })
    .await;
    let page = public
        .get("/admin?invitation=abc123")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("https://notes.example.com/invite/abc123"),
        "ONCENOTE_PUBLIC_URL names the server: {page}"
    );
}

#[tokio::test]
async fn a_sign_in_never_sends_a_person_to_another_site() {
    let app = spawn_app().await;
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    // Browsers drop tabs and line breaks inside a URL: `/\t/evil.example/x` is
    // `//evil.example/x`, another site.
    for next in [
        "/\t/evil.example/x",
        "/\n/evil.example/x",
        "/\r\n//evil.example",
        "/\\evil.example",
        "/\u{3000}/evil.example",
    ] {
        let signed_in = no_redirects
            .post(app.url("/sign-in"))
            .form(&[
                ("username", ADMIN),
                ("password", ADMIN_PASSWORD),
                ("next", next),
            ])
            .send()
            .await
            .unwrap();
        assert_eq!(signed_in.status(), 303);
        assert_eq!(signed_in.headers()["location"], "/", "{next:?}");
    }
    // Nor does the sign-in page carry such a `next` into its form.
    let page = anonymous()
        .get(app.url("/sign-in?next=%2F%09%2Fevil.example%2Fx"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!page.contains("evil.example"), "the page carried it on");
}

#[tokio::test]
async fn a_setup_link_printed_at_an_earlier_start_no_longer_works() {
    let app = spawn_app_with(|c| c.admin = None).await;
    let store =
        server::storage::Store::open(&server::config::Config::for_tests(app.database_url.clone()))
            .await
            .unwrap();
    let digest = |token: &str| hex::encode(Sha256::digest(token.as_bytes()));
    store
        .accounts()
        .add_setup_token(
            &digest("printed-at-the-first-start"),
            "2026-11-30T05:00:00Z",
        )
        .await
        .unwrap();
    store
        .accounts()
        .add_setup_token(
            &digest("printed-at-the-second-start"),
            "2026-11-30T06:00:00Z",
        )
        .await
        .unwrap();
    let setup = |token: &'static str| {
        anonymous()
            .post(app.url("/api/setup"))
            .json(&json!({ "token": token, "username": "root", "password": "a long password" }))
            .send()
    };
    let old = setup("printed-at-the-first-start").await.unwrap();
    assert_eq!(problem_of(old).await.slug(), "setup-link-invalid");
    assert_eq!(
        setup("printed-at-the-second-start").await.unwrap().status(),
        201
    );
    store.close().await;
}
