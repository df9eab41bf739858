//! The person's files, a page at a time, and what each costs of their quota (issue #60:
//! the list was one answer however many files, and a file counted only its bytes, so
//! thousands of tiny files cost next to nothing and made a list of megabytes). Each file
//! is charged at least 4 KiB; `GET /api/files?limit=&cursor=` pages newest first with a
//! count of them all.
//!
//! The answers are read as JSON values, as a client sees them.

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::helpers::{TestApp, problem_of, spawn_app_with};

/// The least a file costs of its person's quota.
const MIN_CHARGE: u64 = 4096;

fn sha(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

async fn upload(app: &TestApp, bytes: &[u8]) -> reqwest::Response {
    app.client
        .put(app.url(&format!("/api/files/{}", sha(bytes))))
        .header("content-type", "text/plain")
        .body(bytes.to_vec())
        .send()
        .await
        .expect("the server answers")
}

async fn list(app: &TestApp, query: &str) -> Value {
    let response = app.get(&format!("/api/files{query}")).await;
    assert_eq!(response.status(), 200, "GET /api/files{query}");
    response.json().await.expect("JSON")
}

fn names(page: &Value) -> Vec<String> {
    page["files"]
        .as_array()
        .expect("a list of files")
        .iter()
        .map(|f| f["sha256"].as_str().expect("a name").to_owned())
        .collect()
}

#[tokio::test]
async fn each_file_costs_at_least_4_kib_so_tiny_files_fill_the_quota_too() {
    let app = spawn_app_with(|config| config.file_quota_bytes = 4 * MIN_CHARGE - 1).await;
    for bytes in [b"one", b"two", b"six"] {
        assert_eq!(upload(&app, bytes).await.status(), 201);
    }
    let listed = list(&app, "").await;
    assert_eq!(listed["used_bytes"], 3 * MIN_CHARGE, "{listed}");
    for file in listed["files"].as_array().unwrap() {
        assert_eq!(file["size"], 3, "a file's size is still its bytes");
    }

    let fourth = upload(&app, b"ten").await;
    assert_eq!(fourth.status(), 413);
    assert_eq!(problem_of(fourth).await.slug(), "quota-exceeded");
    assert_eq!(list(&app, "").await["used_bytes"], 3 * MIN_CHARGE);

    // A file larger than the minimum costs its bytes.
    let app = spawn_app_with(|config| config.file_quota_bytes = 1_000_000).await;
    assert_eq!(upload(&app, &[7u8; 5000]).await.status(), 201);
    assert_eq!(upload(&app, b"tiny").await.status(), 201);
    assert_eq!(list(&app, "").await["used_bytes"], 5000 + MIN_CHARGE);
}

#[tokio::test]
async fn the_file_list_pages_newest_first_with_no_file_twice_across_equal_times() {
    let app = spawn_app_with(|config| config.file_quota_bytes = 1_000_000).await;
    let mut uploaded = Vec::new();
    for n in 0..7u8 {
        let bytes = [n; 10];
        assert_eq!(upload(&app, &bytes).await.status(), 201);
        uploaded.push(sha(&bytes));
    }
    // An import stamps all its files with one time: the five between the first and the
    // last upload share theirs here, and the first is older still.
    let stamp = |at: &'static str, sha256: String| {
        sqlx::query("UPDATE files SET created_at = $1 WHERE sha256 = $2")
            .bind(at)
            .bind(sha256)
            .execute(&app.pool)
    };
    stamp("2020-01-01T00:00:00.000000Z", uploaded[0].clone())
        .await
        .unwrap();
    for sha256 in &uploaded[1..6] {
        stamp("2021-01-01T00:00:00.000000Z", sha256.clone())
            .await
            .unwrap();
    }

    let mut query = "?limit=2".to_owned();
    let mut seen: Vec<String> = Vec::new();
    let mut pages = 0;
    loop {
        let page = list(&app, &query).await;
        pages += 1;
        let on_page = names(&page);
        assert!(on_page.len() <= 2, "a page holds at most its limit: {page}");
        assert_eq!(page["file_count"], 7, "every page counts them all: {page}");
        assert_eq!(page["used_bytes"], 7 * MIN_CHARGE);
        seen.extend(on_page);
        match page["next"].as_str() {
            Some(next) => query = format!("?limit=2&cursor={next}"),
            None => break,
        }
        assert!(pages < 10, "next leads somewhere: {page}");
    }
    assert_eq!(pages, 4);
    // Newest first (the last upload, the five of one time, the first upload); among equal
    // times by name, from the last.
    let mut tied: Vec<String> = uploaded[1..6].to_vec();
    tied.sort();
    tied.reverse();
    let mut expected = vec![uploaded[6].clone()];
    expected.extend(tied);
    expected.push(uploaded[0].clone());
    assert_eq!(seen, expected, "each file once, in order");

    let all = list(&app, "").await;
    assert_eq!(names(&all).len(), 7, "50 a page by default");
    assert!(all["next"].is_null());
}

#[tokio::test]
async fn a_bad_limit_or_cursor_of_the_file_list_is_400_invalid_query() {
    let app = spawn_app_with(|_| {}).await;
    for query in [
        "limit=0",
        "limit=201",
        "cursor=nonsense",
        "cursor=2026-12-01T00:00:00.000000Z",
        "cursor=2026-12-01T00:00:00.000000Z_abc",
        "cursor=yesterday_0000000000000000000000000000000000000000000000000000000000000000",
    ] {
        let response = app.get(&format!("/api/files?{query}")).await;
        assert_eq!(response.status(), 400, "?{query}");
        assert_eq!(
            problem_of(response).await.slug(),
            "invalid-query",
            "?{query}"
        );
    }
}
