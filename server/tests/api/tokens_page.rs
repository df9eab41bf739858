//! The account page's token form for everyone: a status region that is there before a
//! token fills it (so screen readers announce the token), and a form that, without
//! JavaScript, posts (never puts the name in a URL) and comes back saying why nothing
//! was made.

use crate::helpers::spawn_app;

#[tokio::test]
async fn the_token_form_posts_and_its_status_region_is_there_before_any_token() {
    let app = spawn_app().await;
    let html = app.get("/account").await.text().await.unwrap();
    assert!(
        html.contains(r#"method="post" action="/account/tokens""#),
        "{html}"
    );
    let region = html
        .split_once(r#"<div role="status" data-testid="made-token">"#)
        .map(|(_, rest)| rest.split("</div>").next().unwrap_or_default())
        .unwrap_or_else(|| panic!("no status region for a made token: {html}"));
    assert!(!region.contains("Copy it now"), "{region}");
}

#[tokio::test]
async fn the_token_form_sent_without_javascript_makes_nothing_and_says_why() {
    let app = spawn_app().await;
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let sent = no_redirects
        .post(app.url("/account/tokens"))
        .header(
            "cookie",
            format!("oncenote_session={}", app.session.as_deref().unwrap()),
        )
        .form(&[("name", "backup script")])
        .send()
        .await
        .unwrap();
    assert_eq!(sent.status(), 303);
    let back = sent.headers()["location"].to_str().unwrap().to_owned();
    assert_eq!(back, "/account?tokens=needs-script#tokens-heading");
    let tokens: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM api_tokens")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(tokens, 0);
    let page = app.get(&back).await.text().await.unwrap();
    assert!(page.contains("Making a token needs JavaScript"), "{page}");
}
