//! The service worker script the server renders for the offline shell, and what pages
//! and the sign-out tell the browser and the worker: whose a page is, what may be kept, and
//! what goes when the person leaves (issue #60).

use crate::helpers::{anonymous, spawn_app, spawn_app_with};

#[tokio::test]
async fn the_service_worker_names_its_cache_after_the_build_and_is_never_http_cached() {
    let app = spawn_app_with(|config| config.build_id = Some("build-42".into())).await;
    let response = app.get("/sw.js").await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["cache-control"], "no-cache");
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/javascript")
    );
    let script = response.text().await.unwrap();
    assert!(script.contains(r#"const BUILD = "build-42";"#), "{script}");
    assert!(script.contains(r#""/manifest.webmanifest""#));
}

#[tokio::test]
async fn the_offline_shell_the_worker_writes_carries_the_servers_page_policy() {
    let app = spawn_app_with(|_| {}).await;
    let script = app.get("/sw.js").await.text().await.unwrap();
    assert!(
        !script.contains("__PAGE_POLICY__"),
        "the policy was not filled in"
    );
    let line = script
        .lines()
        .find(|line| line.starts_with("const PAGE_POLICY = "))
        .expect("the worker declares the page policy");
    assert!(
        line.contains("script-src 'self' 'nonce-__NONCE__' 'wasm-unsafe-eval'"),
        "{line}"
    );
    assert!(line.contains("frame-ancestors 'none'"), "{line}");
    assert!(!line.contains("unsafe-inline"), "{line}");
}

#[tokio::test]
async fn a_page_for_a_signed_in_person_says_whose_it_is_and_is_never_stored_by_the_browser() {
    let app = spawn_app().await;
    let note = app.create("Private", "nobody else's").await;
    let me: app::api::Me = app.get("/api/me").await.json().await.unwrap();
    for path in [
        "/".to_owned(),
        format!("/notes/{}", note.id),
        "/tags".to_owned(),
    ] {
        let page = app.get(&path).await;
        assert_eq!(page.status(), 200, "{path}");
        assert_eq!(
            page.headers()["x-oncenote-user"],
            me.user_id.as_str(),
            "{path}"
        );
        // Back after a sign-out, or the next person at the browser, finds no copy of it.
        assert_eq!(page.headers()["cache-control"], "no-store", "{path}");
        // The worker keeps it all the same, for its person to read offline.
        assert!(page.headers().get("x-oncenote-keep").is_none(), "{path}");
    }
}

#[tokio::test]
async fn the_account_pages_are_never_kept_by_the_worker_nor_stored_by_the_browser() {
    let app = spawn_app().await;
    let account = app.get("/account").await;
    assert_eq!(account.status(), 200);
    assert_eq!(account.headers()["x-oncenote-keep"], "never");
    assert_eq!(account.headers()["cache-control"], "no-store");
    let sign_in = anonymous().get(app.url("/sign-in")).send().await.unwrap();
    assert_eq!(sign_in.status(), 200);
    // Nobody's: the worker deletes every person's kept pages when it sees this answer.
    assert_eq!(sign_in.headers()["x-oncenote-user"], "-");
    assert_eq!(sign_in.headers()["x-oncenote-keep"], "never");
    assert_eq!(sign_in.headers()["cache-control"], "no-store");
}

#[tokio::test]
async fn signing_out_has_the_browser_clear_its_http_cache_and_keep_its_storage() {
    let app = spawn_app().await;
    let session = app.session.clone().expect("the admin is signed in");
    let not_following = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let signed_out = not_following
        .post(app.url("/sign-out"))
        .header("cookie", format!("oncenote_session={session}"))
        .header("sec-fetch-site", "same-origin")
        .form(&[("", "")])
        .send()
        .await
        .unwrap();
    assert_eq!(signed_out.status(), 303);
    assert_eq!(signed_out.headers()["location"], "/sign-in?signed_out=1");
    // Not "storage": the writes still waiting in localStorage stay for the person.
    assert_eq!(signed_out.headers()["clear-site-data"], "\"cache\"");
    assert_eq!(app.get("/api/me").await.status(), 401);
}
