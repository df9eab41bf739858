//! Starting the real application for a test, and reading its database.

use std::time::Duration;

use app::api::IDEMPOTENCY_KEY_HEADER;
use server::config::Config;
use server::startup::Application;
use sqlx::AnyPool;

use crate::test_db::TestDb;

/// The first admin every test app is made with.
pub const ADMIN: &str = "admin";
pub const ADMIN_PASSWORD: &str = "admin password";

pub struct TestApp {
    pub address: String,
    /// The test's own connections to the app's database (SQL both databases take).
    pub pool: AnyPool,
    /// A client signed in as the admin (every request carries the session cookie).
    pub client: reqwest::Client,
    /// The admin's session token (for raw requests).
    pub session: Option<String>,
    pub database_url: String,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    server: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
    /// The app's database (SQLite or PostgreSQL, see `test_db`); dropped last.
    pub db: TestDb,
}

/// The app on 127.0.0.1:0 with a database of its own.
pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

/// Like [`spawn_app`], with settings changed first.
pub async fn spawn_app_with(configure: impl FnOnce(&mut Config)) -> TestApp {
    spawn_app_on(TestDb::new().await, configure).await
}

/// The app on a database of the test's choosing.
pub async fn spawn_app_on(db: TestDb, configure: impl FnOnce(&mut Config)) -> TestApp {
    let database_url = db.url.clone();
    let mut config = Config::for_tests(database_url.clone());
    config.admin = Some((ADMIN.into(), ADMIN_PASSWORD.into()));
    configure(&mut config);
    let signed_in = config.admin.clone();
    let app = Application::build(config)
        .await
        .expect("the application starts");
    let address = format!("http://{}", app.local_addr());
    // The test's own connection to the database, to count rows and inject faults.
    let pool = db.pool().await;
    let (shutdown, stop) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app.run_until(async move {
        let _ = stop.await;
    }));
    let mut app = TestApp {
        address,
        pool,
        client: anonymous(),
        session: None,
        database_url,
        shutdown: Some(shutdown),
        server: Some(server),
        db,
    };
    if let Some((username, password)) = signed_in {
        let token = app.sign_in(&username, &password).await;
        app.client = client_with(&token);
        app.session = Some(token);
    }
    app
}

/// A second server process on the same database (a replica behind the same proxy).
pub struct Replica {
    pub address: String,
    _shutdown: tokio::sync::oneshot::Sender<()>,
}

impl Replica {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }
}

impl TestApp {
    /// Starts another server on this app's database, configured like `configure` says.
    pub async fn replica_with(&self, configure: impl FnOnce(&mut Config)) -> Replica {
        let mut config = Config::for_tests(self.database_url.clone());
        configure(&mut config);
        let app = Application::build(config)
            .await
            .expect("the replica starts");
        let address = format!("http://{}", app.local_addr());
        let (shutdown, stop) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(app.run_until(async move {
            let _ = stop.await;
        }));
        Replica {
            address,
            _shutdown: shutdown,
        }
    }
}

/// A client with no session.
pub fn anonymous() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .expect("an HTTP client")
}

/// A client whose every request carries this session token.
pub fn client_with(token: &str) -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::COOKIE,
        // Both names: the plain one is read over HTTP, the `__Host-` one over HTTPS.
        format!("oncenote_session={token}; __Host-oncenote_session={token}")
            .parse()
            .expect("a cookie"),
    );
    reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .default_headers(headers)
        .build()
        .expect("an HTTP client")
}

/// The session token in an answer's `Set-Cookie`.
pub fn session_token(response: &reqwest::Response) -> Option<String> {
    response
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|v| {
            v.strip_prefix("oncenote_session=")
                .or_else(|| v.strip_prefix("__Host-oncenote_session="))
        })
        .map(|v| v.split(';').next().unwrap_or_default().to_owned())
        .filter(|v| !v.is_empty())
}

impl TestApp {
    /// Signs in; returns the session token.
    pub async fn sign_in(&self, username: &str, password: &str) -> String {
        let response = anonymous()
            .post(self.url("/api/session"))
            .json(&serde_json::json!({ "username": username, "password": password }))
            .send()
            .await
            .expect("the server answers");
        assert_eq!(response.status(), 204, "signing in as {username}");
        session_token(&response).expect("a session cookie")
    }

    /// A new user (invited by the admin), signed in: their client.
    pub async fn new_user(&self, username: &str) -> reqwest::Client {
        let invitation: serde_json::Value = self
            .client
            .post(self.url("/api/invitations"))
            .send()
            .await
            .expect("the server answers")
            .json()
            .await
            .expect("an invitation");
        let token = invitation["token"].as_str().expect("a token");
        let response = anonymous()
            .post(self.url(&format!("/api/invitations/{token}/accept")))
            .json(&serde_json::json!({ "username": username, "password": "password of a user" }))
            .send()
            .await
            .expect("the server answers");
        assert_eq!(
            response.status(),
            201,
            "accepting an invitation for {username}"
        );
        client_with(&session_token(&response).expect("a session cookie"))
    }
}

/// A valid request body.
pub fn note_json(title: &str) -> serde_json::Value {
    serde_json::json!({ "title": title, "body": "body text", "written_at": "2026-11-30T05:00:00.000Z" })
}

impl TestApp {
    /// Sends the shutdown signal and waits for the server to return (at most `bound`).
    /// Returns how long it took, or `None` if it was still running at the bound.
    pub async fn shut_down(&mut self, bound: Duration) -> Option<Duration> {
        let started = std::time::Instant::now();
        if let Some(signal) = self.shutdown.take() {
            let _ = signal.send(());
        }
        let server = self.server.take()?;
        match tokio::time::timeout(bound, server).await {
            Ok(result) => {
                result
                    .expect("the server task")
                    .expect("the server stops cleanly");
                Some(started.elapsed())
            }
            Err(_) => None,
        }
    }

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

    /// `GET path`.
    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(self.url(path))
            .send()
            .await
            .expect("the server answers")
    }

    /// `PATCH /api/notes/{id}` with a key, a JSON body and optional extra headers.
    pub async fn patch_note(
        &self,
        id: &str,
        key: &str,
        body: &serde_json::Value,
        headers: &[(&str, &str)],
    ) -> reqwest::Response {
        let mut request = self
            .client
            .patch(self.url(&format!("/api/notes/{id}")))
            .header(IDEMPOTENCY_KEY_HEADER, key)
            .json(body);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request.send().await.expect("the server answers")
    }

    /// `DELETE /api/notes/{id}` (to the trash; `permanent`: for good).
    pub async fn delete_note(&self, id: &str, key: &str, permanent: bool) -> reqwest::Response {
        let path = if permanent {
            format!("/api/notes/{id}?permanent=true")
        } else {
            format!("/api/notes/{id}")
        };
        self.client
            .delete(self.url(&path))
            .header(IDEMPOTENCY_KEY_HEADER, key)
            .send()
            .await
            .expect("the server answers")
    }

    /// `POST /api/notes/{id}/restore`.
    pub async fn restore_note(&self, id: &str, key: &str) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/api/notes/{id}/restore")))
            .header(IDEMPOTENCY_KEY_HEADER, key)
            .send()
            .await
            .expect("the server answers")
    }

    /// The note as the API returns it now.
    pub async fn note(&self, id: &str) -> app::api::Note {
        let response = self.get(&format!("/api/notes/{id}")).await;
        assert_eq!(response.status(), 200, "reading note {id}");
        response.json().await.expect("a note")
    }

    /// Creates a note and returns it.
    pub async fn create(&self, title: &str, body: &str) -> app::api::Note {
        let response = self
            .post_note(
                Some(&uuid::Uuid::new_v4().to_string()),
                &serde_json::json!({ "title": title, "body": body, "written_at": "2026-11-30T05:00:00.000Z" }),
            )
            .await;
        assert_eq!(response.status(), 201);
        response.json().await.expect("a note")
    }

    /// The note's revisions, oldest first, each with its body, through the API: every
    /// page of the history, then each version on its own.
    pub async fn revisions(&self, id: &str) -> Vec<app::api::Revision> {
        let mut listed = Vec::new();
        let mut path = format!("/api/notes/{id}/revisions");
        loop {
            let response = self.get(&path).await;
            assert_eq!(response.status(), 200, "GET {path}");
            let page: app::api::RevisionsPage = response.json().await.expect("a page");
            listed.extend(page.revisions);
            match page.next {
                Some(next) => path = format!("/api/notes/{id}/revisions?cursor={next}"),
                None => break,
            }
        }
        let mut revisions = Vec::new();
        for summary in listed {
            let path = format!("/api/notes/{id}/revisions/{}", summary.version);
            let response = self.get(&path).await;
            assert_eq!(response.status(), 200, "GET {path}");
            revisions.push(response.json().await.expect("a revision"));
        }
        revisions
    }

    pub async fn revision_count(&self) -> i64 {
        sqlx::query_scalar("SELECT COUNT(*) FROM revisions")
            .fetch_one(&self.pool)
            .await
            .unwrap()
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

/// An answer read off the wire.
pub struct RawAnswer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl RawAnswer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

impl TestApp {
    /// Sends bytes exactly as given (request line, headers, body) and reads the answer,
    /// for requests an HTTP client library would refuse to make.
    pub async fn send_raw(&self, request: &[u8]) -> RawAnswer {
        use tokio::io::AsyncWriteExt;
        let address = self.address.trim_start_matches("http://");
        let mut stream = tokio::net::TcpStream::connect(address)
            .await
            .expect("connect");
        // The admin's session goes with every raw request that does not bring its own.
        let request = match (&self.session, find(request, b"\r\n")) {
            (Some(token), Some(line_end))
                if find(request, b"\r\nCookie:").is_none()
                    && find(request, b"\r\ncookie:").is_none() =>
            {
                let mut with = request[..line_end + 2].to_vec();
                with.extend_from_slice(format!("Cookie: oncenote_session={token}\r\n").as_bytes());
                with.extend_from_slice(&request[line_end + 2..]);
                with
            }
            _ => request.to_vec(),
        };
        stream.write_all(&request).await.expect("write");
        read_answer(&mut stream).await
    }

    /// Sends `head` (request line and headers, with `Expect: 100-continue`, no cookie
    /// added), waits for the server's `100 Continue` — sent once the handler reads the
    /// body, so the request has been signed in by then —, runs `meanwhile`, then sends
    /// `body` and reads the answer.
    pub async fn send_raw_body_after(
        &self,
        head: &[u8],
        meanwhile: impl std::future::Future<Output = ()>,
        body: &[u8],
    ) -> RawAnswer {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let address = self.address.trim_start_matches("http://");
        let mut stream = tokio::net::TcpStream::connect(address)
            .await
            .expect("connect");
        stream.write_all(head).await.expect("write the head");
        let mut interim = Vec::new();
        let mut buf = [0u8; 1024];
        while find(&interim, b"\r\n\r\n").is_none() {
            let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buf))
                .await
                .expect("the server asks for the body within 10 s")
                .expect("read");
            assert!(read > 0, "the server closed the connection before the body");
            interim.extend_from_slice(&buf[..read]);
        }
        assert!(
            interim.starts_with(b"HTTP/1.1 100"),
            "the server answered before reading the body: {}",
            String::from_utf8_lossy(&interim)
        );
        meanwhile.await;
        stream.write_all(body).await.expect("write the body");
        read_answer(&mut stream).await
    }
}

/// Reads until the answer is complete (by its length, or its last chunk), not until
/// the connection closes: after refusing an oversized body the server may keep the
/// connection open for the rest of it.
async fn read_answer(stream: &mut tokio::net::TcpStream) -> RawAnswer {
    use tokio::io::AsyncReadExt;
    let mut raw = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !answer_complete(&raw) {
        let read = tokio::time::timeout_at(deadline, stream.read(&mut buf))
            .await
            .expect("the server answers within 10 s")
            .expect("read");
        if read == 0 {
            break;
        }
        raw.extend_from_slice(&buf[..read]);
    }
    parse_answer(&raw)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn answer_complete(raw: &[u8]) -> bool {
    let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") else {
        return false;
    };
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let body = &raw[split + 4..];
    if let Some(length) = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok())
    {
        return body.len() >= length;
    }
    if head.contains("transfer-encoding: chunked") {
        return body.ends_with(b"0\r\n\r\n");
    }
    false
}

fn parse_answer(raw: &[u8]) -> RawAnswer {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete head");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    if chunked {
        body = dechunk(&body);
    }
    RawAnswer {
        status,
        headers,
        body,
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = data.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&data[..end]).trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        out.extend_from_slice(&data[end + 2..end + 2 + size]);
        data = &data[end + 2 + size + 2..];
    }
    out
}
