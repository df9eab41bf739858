//! Starting the real application for a test, and reading its database.

use std::time::Duration;

use app::api::IDEMPOTENCY_KEY_HEADER;
use server::config::Config;
use server::startup::Application;
use sqlx::SqlitePool;
use tempfile::TempDir;

pub struct TestApp {
    pub address: String,
    pub pool: SqlitePool,
    pub client: reqwest::Client,
    pub database_url: String,
    _dir: TempDir,
}

/// The app on 127.0.0.1:0 with a database of its own.
pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

/// Like [`spawn_app`], with settings changed first.
pub async fn spawn_app_with(configure: impl FnOnce(&mut Config)) -> TestApp {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let database_url = format!("sqlite://{}", dir.path().join("oncenote.db").display());
    let mut config = Config::for_tests(database_url.clone());
    configure(&mut config);
    let app = Application::build(config)
        .await
        .expect("the application starts");
    let address = format!("http://{}", app.local_addr());
    let pool = app.pool();
    tokio::spawn(app.run_until(std::future::pending()));
    TestApp {
        address,
        pool,
        client: reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .expect("an HTTP client"),
        database_url,
        _dir: dir,
    }
}

/// A valid request body.
pub fn note_json(title: &str) -> serde_json::Value {
    serde_json::json!({ "title": title, "body": "body text", "written_at": "2026-11-30T05:00:00.000Z" })
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    /// `POST /api/notes` with JSON, with or without a key.
    pub async fn post_note(
        &self,
        key: Option<&str>,
        body: &serde_json::Value,
    ) -> reqwest::Response {
        let mut request = self.client.post(self.url("/api/notes")).json(body);
        if let Some(key) = key {
            request = request.header(IDEMPOTENCY_KEY_HEADER, key);
        }
        request.send().await.expect("the server answers")
    }

    /// `POST /api/notes` with raw bytes and the given headers.
    pub async fn post_raw(
        &self,
        headers: &[(&str, &str)],
        body: impl Into<reqwest::Body>,
    ) -> reqwest::Response {
        let mut request = self.client.post(self.url("/api/notes")).body(body);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request.send().await.expect("the server answers")
    }

    pub async fn note_count(&self) -> i64 {
        sqlx::query_scalar("SELECT COUNT(*) FROM notes")
            .fetch_one(&self.pool)
            .await
            .unwrap()
    }

    pub async fn key_count(&self) -> i64 {
        sqlx::query_scalar("SELECT COUNT(*) FROM idempotency_keys")
            .fetch_one(&self.pool)
            .await
            .unwrap()
    }
}

/// The problem document of an error answer, after checking its media type.
pub async fn problem_of(response: reqwest::Response) -> app::api::Problem {
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert_eq!(content_type, "application/problem+json");
    response.json().await.expect("a problem document")
}
