//! The service worker script the server renders for the offline shell.

use crate::helpers::spawn_app_with;

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
