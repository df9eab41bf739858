//! Files in notes (PROTOCOL.md, "Files"): an upload is stored once under the SHA-256 of
//! its bytes, for its owner only, served so that nothing in it can run; a refused, broken
//! or killed upload leaves nothing behind — no row, no usage, no spool file.

use crate::server_process::ServerProcess;
use std::path::Path;
use std::time::Duration;

use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use app::api::{FileAnswer, FileList};

use crate::helpers::{TestApp, anonymous, problem_of, spawn_app_with};
use crate::test_db::Backend;

fn sha(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// `n` bytes that differ with `seed`.
fn bytes_of(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

/// The start of a real PNG (its signature and IHDR), then anything.
fn png() -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0".to_vec();
    png.extend_from_slice(&bytes_of(200, 7));
    png
}

/// An app whose uploads spool into a folder of the test's own (kept by the test).
async fn app_with(
    spool: &tempfile::TempDir,
    configure: impl FnOnce(&mut server::config::Config),
) -> TestApp {
    let dir = spool.path().to_owned();
    spawn_app_with(move |config| {
        config.spool_dir = dir;
        configure(config);
    })
    .await
}

async fn put(
    client: &reqwest::Client,
    app: &TestApp,
    name: &str,
    bytes: Vec<u8>,
    content_type: &str,
) -> reqwest::Response {
    client
        .put(app.url(&format!("/api/files/{name}")))
        .header("content-type", content_type)
        .body(bytes)
        .send()
        .await
        .expect("the server answers")
}

async fn upload(app: &TestApp, bytes: &[u8], content_type: &str) -> reqwest::Response {
    put(&app.client, app, &sha(bytes), bytes.to_vec(), content_type).await
}

async fn file_rows(app: &TestApp) -> i64 {
    sqlx::query_scalar("SELECT COUNT(*) FROM files")
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

async fn chunk_rows(app: &TestApp) -> i64 {
    sqlx::query_scalar("SELECT COUNT(*) FROM file_chunks")
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

/// Everyone's bytes in files, as `file_usage` counts them.
async fn used(app: &TestApp) -> i64 {
    // PostgreSQL sums BIGINT as NUMERIC: cast back.
    sqlx::query_scalar::<_, i64>(
        "SELECT CAST(COALESCE(SUM(used_bytes), 0) AS BIGINT) FROM file_usage",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap()
}

fn spool_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Waits (up to 5 s) for the spool folder to be empty; its files otherwise.
async fn spool_empties(dir: &Path) -> Vec<String> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let left = spool_files(dir);
        if left.is_empty() || tokio::time::Instant::now() > deadline {
            return left;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn list(client: &reqwest::Client, app: &TestApp) -> FileList {
    let response = client.get(app.url("/api/files")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

/// An upload over a raw connection, its body sent in pieces as the test says.
struct RawUpload {
    stream: tokio::net::TcpStream,
}

impl RawUpload {
    /// Sends the request's head: `length` as `Content-Length`, or chunked without it.
    async fn start(app: &TestApp, token: &str, name: &str, length: Option<usize>) -> Self {
        let address = app.address.trim_start_matches("http://");
        let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
        let framing = match length {
            Some(n) => format!("Content-Length: {n}"),
            None => "Transfer-Encoding: chunked".to_owned(),
        };
        let head = format!(
            "PUT /api/files/{name} HTTP/1.1\r\nHost: {address}\r\n\
             Cookie: oncenote_session={token}\r\nContent-Type: application/octet-stream\r\n\
             {framing}\r\n\r\n"
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        Self { stream }
    }

    async fn send(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.stream.write_all(bytes).await
    }

    /// Sends `bytes` as one chunk of a chunked body.
    async fn send_chunk(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.stream
            .write_all(format!("{:x}\r\n", bytes.len()).as_bytes())
            .await?;
        self.stream.write_all(bytes).await?;
        self.stream.write_all(b"\r\n").await
    }

    /// The answer's status line and head (the body is not waited for).
    async fn answer_head(&mut self, within: Duration) -> Option<String> {
        let mut raw = Vec::new();
        let mut buf = [0u8; 4096];
        let deadline = tokio::time::Instant::now() + within;
        while !raw.windows(4).any(|w| w == b"\r\n\r\n") {
            match tokio::time::timeout_at(deadline, self.stream.read(&mut buf)).await {
                Ok(Ok(n)) if n > 0 => raw.extend_from_slice(&buf[..n]),
                _ => return None,
            }
        }
        Some(String::from_utf8_lossy(&raw).into_owned())
    }
}

fn status_of(head: &str) -> u16 {
    head.split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

#[tokio::test]
async fn an_upload_is_201_the_first_time_then_200_replayed_one_row_counted_once() {
    let spool = tempfile::tempdir().unwrap();
    let app = app_with(&spool, |_| {}).await;
    let bytes = bytes_of(600_000, 1);
    let name = sha(&bytes);

    let first = upload(&app, &bytes, "application/pdf").await;
    assert_eq!(first.status(), 201);
    assert_eq!(first.headers()["location"], format!("/files/{name}"));
    assert!(first.headers().get("idempotent-replayed").is_none());
    let stored: FileAnswer = first.json().await.unwrap();
    assert_eq!(stored.file.sha256, name);
    assert_eq!(stored.file.size, 600_000);
    assert_eq!(stored.file.content_type, "application/pdf");

    let again = upload(&app, &bytes, "application/pdf").await;
    assert_eq!(again.status(), 200);
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    let replayed: FileAnswer = again.json().await.unwrap();
    assert_eq!(replayed, stored);

    assert_eq!(file_rows(&app).await, 1);
    assert_eq!(
        chunk_rows(&app).await,
        3,
        "600 000 bytes are three 256 KiB chunks"
    );
    assert_eq!(used(&app).await, 600_000, "counted once");
    let listed = list(&app.client, &app).await;
    assert_eq!(listed.files, vec![stored.file]);
    assert_eq!(listed.used_bytes, 600_000);
    assert_eq!(listed.quota_bytes, 1024 * 1024 * 1024);
    assert!(spool_empties(spool.path()).await.is_empty());

    let whole = app.get(&format!("/files/{name}")).await;
    assert_eq!(whole.status(), 200);
    assert_eq!(
        whole.bytes().await.unwrap().to_vec(),
        bytes,
        "served as stored"
    );
}

#[tokio::test]
async fn a_replay_is_answered_without_reading_the_body() {
    let spool = tempfile::tempdir().unwrap();
    let app = app_with(&spool, |_| {}).await;
    let bytes = bytes_of(100_000, 2);
    assert_eq!(upload(&app, &bytes, "text/plain").await.status(), 201);

    // The head says 100 000 bytes follow; none are sent, and the answer comes anyway —
    // long before the 30 s body timeout.
    let token = app.session.clone().unwrap();
    let mut raw = RawUpload::start(&app, &token, &sha(&bytes), Some(bytes.len())).await;
    let head = raw
        .answer_head(Duration::from_secs(5))
        .await
        .expect("answered without the body");
    assert_eq!(status_of(&head), 200, "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("idempotent-replayed: true"),
        "{head}"
    );
    assert_eq!(file_rows(&app).await, 1);
    assert_eq!(used(&app).await, 100_000);
}

#[tokio::test]
async fn bytes_that_do_not_hash_to_the_name_are_422_hash_mismatch_and_nothing_is_stored() {
    let spool = tempfile::tempdir().unwrap();
    let app = app_with(&spool, |_| {}).await;
    let bytes = bytes_of(300_000, 3);
    let other = sha(b"other bytes");

    let refused = put(&app.client, &app, &other, bytes.clone(), "image/png").await;
    assert_eq!(refused.status(), 422);
    let problem = problem_of(refused).await;
    assert_eq!(problem.slug(), "hash-mismatch");
    assert!(problem.detail.contains(&sha(&bytes)), "{}", problem.detail);

    assert_eq!(file_rows(&app).await, 0);
    assert_eq!(chunk_rows(&app).await, 0);
    assert_eq!(used(&app).await, 0, "usage unchanged");
    assert!(spool_empties(spool.path()).await.is_empty());
    assert_eq!(app.get(&format!("/files/{other}")).await.status(), 404);
}

#[tokio::test]
async fn a_name_that_is_no_sha256_is_404_and_an_upload_needs_a_session() {
    let spool = tempfile::tempdir().unwrap();
    let app = app_with(&spool, |_| {}).await;
    let bytes = b"hello".to_vec();
    for name in [
        sha(&bytes).to_uppercase(),
        sha(&bytes)[..63].to_owned(),
        "not-a-hash".to_owned(),
    ] {
        let refused = put(&app.client, &app, &name, bytes.clone(), "text/plain").await;
        assert_eq!(refused.status(), 404, "{name}");
    }
    let signed_out = put(
        &anonymous(),
        &app,
        &sha(&bytes),
        bytes.clone(),
        "text/plain",
    )
    .await;
    assert_eq!(signed_out.status(), 401);
    let cross_site = app
        .client
        .put(app.url(&format!("/api/files/{}", sha(&bytes))))
        .header("sec-fetch-site", "cross-site")
        .body(bytes.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(cross_site.status(), 403);
    // The page's writes name their person; an upload for someone else is refused.
    let someone_else = app
        .client
        .put(app.url(&format!("/api/files/{}", sha(&bytes))))
        .header("x-oncenote-user", "someone-else")
        .body(bytes)
        .send()
        .await
        .unwrap();
    assert_eq!(someone_else.status(), 409);
    assert_eq!(file_rows(&app).await, 0);
}

#[tokio::test]
async fn two_uploads_of_the_same_new_file_at_once_store_one_file() {
    let spool = tempfile::tempdir().unwrap();
    let app = app_with(&spool, |_| {}).await;
    let bytes = bytes_of(2 * 1024 * 1024, 4);
    for round in 0..3u8 {
        let bytes = [bytes.as_slice(), &[round]].concat();
        let (a, b) = tokio::join!(
            upload(&app, &bytes, "application/zip"),
            upload(&app, &bytes, "application/zip")
        );
        let mut statuses = [a.status().as_u16(), b.status().as_u16()];
        statuses.sort();
        assert_eq!(
            statuses,
            [200, 201],
            "round {round}: one stored, one replayed"
        );
        let (a, b): (FileAnswer, FileAnswer) = (a.json().await.unwrap(), b.json().await.unwrap());
        assert_eq!(a, b);
    }
    assert_eq!(file_rows(&app).await, 3);
    assert_eq!(used(&app).await, 3 * (2 * 1024 * 1024 + 1));
    assert!(spool_empties(spool.path()).await.is_empty());
}

#[tokio::test]
async fn another_persons_file_is_404_even_for_the_same_bytes_which_make_their_own_file() {
    let spool = tempfile::tempdir().unwrap();
    let app = app_with(&spool, |_| {}).await;
    let bob = app.new_user("bob").await;
    let bytes = png();
    let name = sha(&bytes);
    assert_eq!(upload(&app, &bytes, "image/png").await.status(), 201);

    let unknown = sha(b"no one has this");
    let as_bob = bob
        .get(app.url(&format!("/files/{name}")))
        .send()
        .await
        .unwrap();
    let never = bob
        .get(app.url(&format!("/files/{unknown}")))
        .send()
        .await
        .unwrap();
    assert_eq!(as_bob.status(), 404);
    assert_eq!(never.status(), 404);
    // The same answer whether the file exists for someone else or not at all.
    assert_eq!(problem_of(as_bob).await, problem_of(never).await);
    let signed_out = anonymous()
        .get(app.url(&format!("/files/{name}")))
        .send()
        .await
        .unwrap();
    assert_eq!(signed_out.status(), 404);
    assert!(list(&bob, &app).await.files.is_empty());

    // Bob's upload of the same bytes is Bob's own file: new, counted for him.
    let his = put(&bob, &app, &name, bytes.clone(), "image/png").await;
    assert_eq!(his.status(), 201, "not a replay of the admin's file");
    let served = bob
        .get(app.url(&format!("/files/{name}")))
        .send()
        .await
        .unwrap();
    assert_eq!(served.status(), 200);
    assert_eq!(served.bytes().await.unwrap().to_vec(), bytes);
    assert_eq!(file_rows(&app).await, 2);
    // A small file costs each of them the least a file costs.
    let charge = app::api::quota_charge(bytes.len() as u64);
    assert_eq!(list(&bob, &app).await.used_bytes, charge);
    assert_eq!(list(&app.client, &app).await.used_bytes, charge);
}

fn header<'a>(response: &'a reqwest::Response, name: &str) -> &'a str {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

#[tokio::test]
async fn images_by_their_bytes_are_inline_and_html_or_svg_are_attachments_never_run() {
    let spool = tempfile::tempdir().unwrap();
    let app = app_with(&spool, |_| {}).await;
    // A PNG declared as HTML is still a PNG: inline, as image/png.
    let image = png();
    assert_eq!(upload(&app, &image, "text/html").await.status(), 201);
    let html = b"<!doctype html><script>fetch('/api/notes')</script>".to_vec();
    assert_eq!(
        upload(&app, &html, "text/html; charset=utf-8")
            .await
            .status(),
        201
    );
    let svg = b"<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>".to_vec();
    assert_eq!(upload(&app, &svg, "image/svg+xml").await.status(), 201);
    let pdf = b"%PDF-1.7 not really".to_vec();
    assert_eq!(upload(&app, &pdf, "application/pdf").await.status(), 201);

    for (bytes, served_type, inline) in [
        (&image, "image/png", true),
        (&html, "application/octet-stream", false),
        (&svg, "application/octet-stream", false),
        (&pdf, "application/pdf", false),
    ] {
        let name = sha(bytes);
        let response = app.get(&format!("/files/{name}")).await;
        assert_eq!(response.status(), 200, "{served_type}");
        assert_eq!(header(&response, "content-type"), served_type);
        let disposition = header(&response, "content-disposition");
        if inline {
            assert_eq!(disposition, "inline");
        } else {
            assert!(
                disposition.starts_with("attachment; filename="),
                "{disposition}"
            );
        }
        assert_eq!(header(&response, "x-content-type-options"), "nosniff");
        assert_eq!(header(&response, "content-security-policy"), "sandbox");
        assert_eq!(header(&response, "etag"), format!("\"{name}\""));
        assert_eq!(header(&response, "cache-control"), "private, no-cache");
        assert_eq!(header(&response, "accept-ranges"), "bytes");
        assert_eq!(response.bytes().await.unwrap().to_vec(), *bytes);

        let unchanged = app
            .client
            .get(app.url(&format!("/files/{name}")))
            .header("if-none-match", format!("\"{name}\""))
            .send()
            .await
            .unwrap();
        assert_eq!(unchanged.status(), 304);
        assert_eq!(header(&unchanged, "etag"), format!("\"{name}\""));
        assert_eq!(header(&unchanged, "content-security-policy"), "sandbox");
        assert_eq!(header(&unchanged, "cache-control"), "private, no-cache");
    }

    // A browser that takes compressed answers still gets the file's own bytes and length.
    let name = sha(&html);
    let answer = app
        .send_raw(
            format!(
                "GET /files/{name} HTTP/1.1\r\nHost: localhost\r\nAccept-Encoding: gzip, br\r\n\r\n"
            )
            .as_bytes(),
        )
        .await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.header("content-encoding"), None);
    assert_eq!(
        answer.header("content-length"),
        Some(html.len().to_string().as_str())
    );
    assert_eq!(answer.body, html);
}

#[tokio::test]
async fn a_browser_asks_again_before_showing_a_file_it_has_and_only_its_owner_gets_a_304() {
    let spool = tempfile::tempdir().unwrap();
    let app = app_with(&spool, |_| {}).await;
    let image = png();
    let name = sha(&image);
    assert_eq!(upload(&app, &image, "image/png").await.status(), 201);
    let me: app::api::Me = app
        .client
        .get(app.url("/api/me"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();

    // Kept by the browser, but asked for again each time (issue #60): after a sign-out the
    // next person at that browser meets the owner check, not the cached bytes.
    let fresh = app.get(&format!("/files/{name}")).await;
    assert_eq!(fresh.status(), 200);
    assert_eq!(header(&fresh, "cache-control"), "private, no-cache");
    // Whose it is, for the service worker (it keeps an image for its owner only).
    assert_eq!(header(&fresh, "x-oncenote-user"), me.user_id);

    let ask_again = |client: reqwest::Client| {
        client
            .get(app.url(&format!("/files/{name}")))
            .header("if-none-match", format!("\"{name}\""))
            .send()
    };
    let unchanged = ask_again(app.client.clone()).await.unwrap();
    assert_eq!(unchanged.status(), 304);
    assert_eq!(header(&unchanged, "cache-control"), "private, no-cache");
    let someone_else = app.new_user("bea").await;
    assert_eq!(ask_again(someone_else).await.unwrap().status(), 404);
    assert_eq!(ask_again(anonymous()).await.unwrap().status(), 404);
}

#[tokio::test]
async fn a_range_is_206_with_only_its_bytes_and_past_the_end_416() {
    let spool = tempfile::tempdir().unwrap();
    let app = app_with(&spool, |_| {}).await;
    let bytes = bytes_of(700_000, 5);
    let name = sha(&bytes);
    assert_eq!(upload(&app, &bytes, "video/mp4").await.status(), 201);
    let get_range = |range: &'static str| {
        app.client
            .get(app.url(&format!("/files/{name}")))
            .header("range", range)
            .send()
    };
    let chunk = 256 * 1024;
    for (range, first, last) in [
        // Across the first chunk boundary.
        ("bytes=262140-262150", chunk - 4, chunk + 6),
        ("bytes=0-0", 0, 0),
        ("bytes=-10", 700_000 - 10, 700_000 - 1),
        ("bytes=600000-", 600_000, 700_000 - 1),
        ("bytes=100-99999999", 100, 700_000 - 1),
    ] {
        let part = get_range(range).await.unwrap();
        assert_eq!(part.status(), 206, "{range}");
        assert_eq!(
            header(&part, "content-range"),
            format!("bytes {first}-{last}/700000"),
            "{range}"
        );
        assert_eq!(
            header(&part, "content-length"),
            (last - first + 1).to_string()
        );
        assert_eq!(
            part.bytes().await.unwrap().to_vec(),
            bytes[first..=last].to_vec(),
            "{range}"
        );
    }
    for range in ["bytes=700000-", "bytes=800000-900000", "bytes=-0"] {
        let refused = get_range(range).await.unwrap();
        assert_eq!(refused.status(), 416, "{range}");
        assert_eq!(header(&refused, "content-range"), "bytes */700000");
    }
    // Two ranges at once are not served: the whole file.
    let whole = get_range("bytes=0-1,5-6").await.unwrap();
    assert_eq!(whole.status(), 200);
    assert_eq!(whole.bytes().await.unwrap().len(), 700_000);
}

#[tokio::test]
async fn a_file_over_the_limit_is_413_with_or_without_content_length_and_leaves_no_spool_file() {
    let spool = tempfile::tempdir().unwrap();
    let max = 1024 * 1024;
    let app = app_with(&spool, |config| config.file_max_bytes = max as u64).await;
    let too_big = bytes_of(max + 1000, 6);
    let name = sha(&too_big);

    // Declared: refused before a byte is read.
    let declared = upload(&app, &too_big, "application/zip").await;
    assert_eq!(declared.status(), 413);
    assert_eq!(problem_of(declared).await.slug(), "payload-too-large");

    // Not declared (chunked): refused once the count passes the limit, without waiting
    // for the body's end (its last chunk is never sent).
    let token = app.session.clone().unwrap();
    let mut raw = RawUpload::start(&app, &token, &name, None).await;
    for piece in too_big.chunks(64 * 1024) {
        if raw.send_chunk(piece).await.is_err() {
            break;
        }
    }
    let head = raw
        .answer_head(Duration::from_secs(5))
        .await
        .expect("answered before the body's end");
    assert_eq!(status_of(&head), 413, "{head}");
    // Exactly the limit is fine.
    let at_limit = bytes_of(max, 6);
    assert_eq!(
        upload(&app, &at_limit, "application/zip").await.status(),
        201
    );

    assert_eq!(file_rows(&app).await, 1);
    assert_eq!(used(&app).await, max as i64);
    assert_eq!(spool_empties(spool.path()).await, Vec::<String>::new());
}

#[tokio::test]
async fn parallel_uploads_past_the_quota_never_take_the_usage_over_it() {
    let spool = tempfile::tempdir().unwrap();
    let quota: u64 = 5 * 1024 * 1024 + 100;
    let app = app_with(&spool, |config| {
        config.file_quota_bytes = quota;
        config.uploads_per_person = 8;
    })
    .await;
    let files: Vec<Vec<u8>> = (0..8).map(|n| bytes_of(1024 * 1024, 10 + n)).collect();
    let answers = futures::future::join_all(
        files
            .iter()
            .map(|bytes| upload(&app, bytes, "application/octet-stream")),
    )
    .await;
    let mut stored = 0;
    for answer in answers {
        match answer.status().as_u16() {
            201 => stored += 1,
            413 => assert_eq!(problem_of(answer).await.slug(), "quota-exceeded"),
            other => panic!("an upload answered {other}"),
        }
    }
    assert_eq!(stored, 5, "five 1 MiB files fit in 5 MiB + 100 bytes");
    assert_eq!(file_rows(&app).await, 5);
    let usage = used(&app).await as u64;
    assert_eq!(usage, 5 * 1024 * 1024);
    assert!(usage <= quota);
    let listed = list(&app.client, &app).await;
    assert_eq!((listed.used_bytes, listed.quota_bytes), (usage, quota));
    assert!(spool_empties(spool.path()).await.is_empty());
}

#[tokio::test]
async fn uploads_past_a_persons_share_are_429_and_past_the_servers_503_until_one_ends() {
    let spool = tempfile::tempdir().unwrap();
    let app = app_with(&spool, |config| {
        config.uploads_per_person = 2;
        config.uploads_max = 3;
    })
    .await;
    let token = app.session.clone().unwrap();
    let held: Vec<Vec<u8>> = (0..2).map(|n| bytes_of(50_000, 40 + n)).collect();
    // Two uploads of the admin's, started and held open halfway through their bodies.
    let mut running = Vec::new();
    for bytes in &held {
        let mut raw = RawUpload::start(&app, &token, &sha(bytes), Some(bytes.len())).await;
        raw.send(&bytes[..25_000]).await.unwrap();
        running.push(raw);
    }
    // Until the spool shows both, they may not have taken their places yet.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while spool_files(spool.path()).len() < 2 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let third = bytes_of(1000, 50);
    let refused = upload(&app, &third, "text/plain").await;
    assert_eq!(refused.status(), 429);
    assert_eq!(refused.headers()["retry-after"], "5");
    assert_eq!(problem_of(refused).await.slug(), "too-many-uploads");

    // Another person still gets a place — the server's last one; past it, 503.
    let bob = app.new_user("bob").await;
    let bobs = bytes_of(1000, 51);
    let bobs_big = bytes_of(50_000, 52);
    let bob_session = app.sign_in("bob", "password of a user").await;
    let mut bobs_held = RawUpload::start(&app, &bob_session, &sha(&bobs_big), Some(50_000)).await;
    bobs_held.send(&bobs_big[..1000]).await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while spool_files(spool.path()).len() < 3 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let full = put(&bob, &app, &sha(&bobs), bobs.clone(), "text/plain").await;
    assert_eq!(full.status(), 503);
    assert!(full.headers().contains_key("retry-after"));
    assert_eq!(problem_of(full).await.slug(), "uploads-full");

    // The held uploads end; their places come back.
    for (raw, bytes) in running.iter_mut().zip(&held) {
        raw.send(&bytes[25_000..]).await.unwrap();
        let head = raw.answer_head(Duration::from_secs(5)).await.unwrap();
        assert_eq!(status_of(&head), 201, "{head}");
    }
    drop(bobs_held);
    assert_eq!(upload(&app, &third, "text/plain").await.status(), 201);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let answer = put(&bob, &app, &sha(&bobs), bobs.clone(), "text/plain").await;
        if answer.status() == 201 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "bob's place never came back"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(file_rows(&app).await, 4);
    assert!(spool_empties(spool.path()).await.is_empty());
}

#[tokio::test]
async fn a_client_that_goes_away_mid_upload_leaves_no_row_no_usage_and_no_spool_file() {
    let spool = tempfile::tempdir().unwrap();
    let app = app_with(&spool, |_| {}).await;
    let bytes = bytes_of(1024 * 1024, 60);
    let token = app.session.clone().unwrap();
    let mut raw = RawUpload::start(&app, &token, &sha(&bytes), Some(bytes.len())).await;
    raw.send(&bytes[..300_000]).await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while spool_files(spool.path()).is_empty() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(spool_files(spool.path()).len(), 1, "the upload is spooling");
    drop(raw);

    assert_eq!(spool_empties(spool.path()).await, Vec::<String>::new());
    assert_eq!(file_rows(&app).await, 0);
    assert_eq!(used(&app).await, 0);
    // Its place came back: the same file uploads whole now.
    assert_eq!(upload(&app, &bytes, "application/zip").await.status(), 201);
}

#[tokio::test]
async fn a_full_disk_is_507_storage_full_and_stores_nothing() {
    if crate::test_db::backend() != Backend::Sqlite {
        // PostgreSQL's disk_full cannot be made here (see database_failures).
        return;
    }
    const PAGES: u32 = 1_000;
    let spool = tempfile::tempdir().unwrap();
    let app = app_with(&spool, |config| config.sqlite_max_pages = Some(PAGES)).await;
    crate::database_failures::fill_the_disk(&app, PAGES).await;
    let bytes = bytes_of(1024 * 1024, 70);
    let refused = upload(&app, &bytes, "application/zip").await;
    assert_eq!(refused.status(), 507);
    assert_eq!(refused.headers()["retry-after"], "30");
    assert_eq!(problem_of(refused).await.slug(), "storage-full");
    assert_eq!(file_rows(&app).await, 0);
    assert_eq!(chunk_rows(&app).await, 0, "no half file");
    assert_eq!(used(&app).await, 0);
    assert!(spool_empties(spool.path()).await.is_empty());

    // Room again: the same upload is stored.
    sqlx::query("DROP TABLE filler")
        .execute(&app.pool)
        .await
        .unwrap();
    assert_eq!(upload(&app, &bytes, "application/zip").await.status(), 201);
}

#[tokio::test]
async fn a_server_killed_mid_upload_leaves_no_row_and_its_spool_file_is_swept_at_the_next_start() {
    let db = crate::test_db::TestDb::new().await;
    let spool = tempfile::tempdir().unwrap();
    let mut server = ServerProcess::start(&[
        ("DATABASE_URL", db.url.clone()),
        ("ONCENOTE_SPOOL_DIR", spool.path().display().to_string()),
    ])
    .await;
    let signed_in = anonymous()
        .post(format!("{}/api/session", server.address))
        .json(&serde_json::json!({ "username": crate::helpers::ADMIN, "password": crate::helpers::ADMIN_PASSWORD }))
        .send()
        .await
        .unwrap();
    let token = crate::helpers::session_token(&signed_in).expect("signed in");

    // A slow upload: half its body sent, then the server is killed.
    let bytes = bytes_of(2 * 1024 * 1024, 80);
    let address = server.address.trim_start_matches("http://").to_owned();
    let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
    let head = format!(
        "PUT /api/files/{} HTTP/1.1\r\nHost: {address}\r\nCookie: oncenote_session={token}\r\n\
         Content-Length: {}\r\n\r\n",
        sha(&bytes),
        bytes.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&bytes[..1024 * 1024]).await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while spool_files(spool.path()).is_empty() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    server.kill();
    drop(stream);

    let left = spool_files(spool.path());
    assert_eq!(
        left.len(),
        1,
        "a killed process cannot remove its spool file"
    );
    // An hour on (a live upload's file is written to all along; this one no longer is).
    let two_hours_ago = std::time::SystemTime::now() - Duration::from_secs(2 * 3600);
    std::fs::File::options()
        .write(true)
        .open(spool.path().join(&left[0]))
        .unwrap()
        .set_modified(two_hours_ago)
        .unwrap();

    let server = ServerProcess::start(&[
        ("DATABASE_URL", db.url.clone()),
        ("ONCENOTE_SPOOL_DIR", spool.path().display().to_string()),
    ])
    .await;
    assert!(spool_files(spool.path()).is_empty(), "swept at start");
    let pool = db.pool().await;
    let rows: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM files")
        .fetch_one(&pool)
        .await
        .unwrap();
    let chunks: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM file_chunks")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!((rows, chunks), (0, 0), "no file, no half file");

    // The upload sent again to the restarted server is stored, once.
    let client = crate::helpers::client_with(&token);
    let stored = client
        .put(format!("{}/api/files/{}", server.address, sha(&bytes)))
        .body(bytes.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(stored.status(), 201);
    let served = client
        .get(format!("{}/files/{}", server.address, sha(&bytes)))
        .send()
        .await
        .unwrap();
    assert_eq!(served.bytes().await.unwrap().to_vec(), bytes);
}

/// A body idle for longer than the body timeout is 408 and leaves nothing; a slow one
/// that keeps sending finishes, however long it takes in all.
#[tokio::test]
async fn an_upload_idle_past_the_body_timeout_is_408_and_a_slow_steady_one_finishes() {
    let spool = tempfile::tempdir().unwrap();
    let app = app_with(&spool, |config| {
        config.body_timeout = Duration::from_secs(1)
    })
    .await;
    let token = app.session.clone().unwrap();
    let bytes = bytes_of(40_000, 90);

    // Steady: a piece every 300 ms for 3 s — three times the body timeout in all.
    let mut steady = RawUpload::start(&app, &token, &sha(&bytes), Some(bytes.len())).await;
    for piece in bytes.chunks(4_000) {
        steady.send(piece).await.unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let head = steady.answer_head(Duration::from_secs(5)).await.unwrap();
    assert_eq!(status_of(&head), 201, "{head}");

    // Idle: half sent, then nothing.
    let other = bytes_of(40_000, 91);
    let mut idle = RawUpload::start(&app, &token, &sha(&other), Some(other.len())).await;
    idle.send(&other[..20_000]).await.unwrap();
    let head = idle.answer_head(Duration::from_secs(5)).await.unwrap();
    assert_eq!(status_of(&head), 408, "{head}");
    assert_eq!(file_rows(&app).await, 1);
    assert!(spool_empties(spool.path()).await.is_empty());
}

#[tokio::test]
async fn the_list_is_newest_first_with_the_usage_and_the_quota() {
    let spool = tempfile::tempdir().unwrap();
    let app = app_with(&spool, |config| config.file_quota_bytes = 10_000_000).await;
    let first = bytes_of(1000, 100);
    let second = bytes_of(2000, 101);
    assert_eq!(upload(&app, &first, "text/plain").await.status(), 201);
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert_eq!(upload(&app, &second, "bogus type").await.status(), 201);
    let listed = list(&app.client, &app).await;
    let names: Vec<&str> = listed.files.iter().map(|f| f.sha256.as_str()).collect();
    assert_eq!(names, [sha(&second), sha(&first)]);
    assert_eq!(listed.files[0].content_type, "application/octet-stream");
    assert_eq!(listed.files[1].content_type, "text/plain");
    // Each file costs at least 4 KiB of the quota; their sizes stay their bytes.
    assert_eq!(
        (listed.used_bytes, listed.quota_bytes),
        (2 * 4096, 10_000_000)
    );
    assert_eq!((listed.files[0].size, listed.files[1].size), (2000, 1000));
    assert_eq!((listed.file_count, listed.next), (2, None));
    assert_eq!(
        anonymous()
            .get(app.url("/api/files"))
            .send()
            .await
            .unwrap()
            .status(),
        401
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_file_uploaded_through_one_replica_is_served_whole_and_in_ranges_by_the_other() {
    // Two server processes on one database (PostgreSQL replicas; on SQLite, two processes
    // on one file): the bytes live in the database, so the other serves them at once.
    let spool = tempfile::tempdir().unwrap();
    let app = app_with(&spool, |_| {}).await;
    let other_spool = tempfile::tempdir().unwrap();
    let other_dir = other_spool.path().to_owned();
    let other = app
        .replica_with(move |config| config.spool_dir = other_dir)
        .await;
    let bytes = bytes_of(700_000, 7); // three chunks
    let name = sha(&bytes);
    assert_eq!(upload(&app, &bytes, "application/pdf").await.status(), 201);

    let url = format!("{}/files/{name}", other.address);
    let whole = app.client.get(&url).send().await.unwrap();
    assert_eq!(whole.status(), 200);
    assert_eq!(whole.bytes().await.unwrap().as_ref(), bytes.as_slice());
    let part = app
        .client
        .get(&url)
        .header("range", "bytes=262000-262999")
        .send()
        .await
        .unwrap();
    assert_eq!(part.status(), 206);
    assert_eq!(
        part.bytes().await.unwrap().as_ref(),
        &bytes[262_000..263_000]
    );
    // And an upload of the same bytes through the other replica is the same file, replayed.
    let again = put(&app.client, &app, &name, bytes.clone(), "application/pdf").await;
    assert_eq!(again.status(), 200);
    let through_other = app
        .client
        .put(format!("{}/api/files/{name}", other.address))
        .header("content-type", "application/pdf")
        .body(bytes.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(through_other.status(), 200);
    assert_eq!(through_other.headers()["idempotent-replayed"], "true");
    assert_eq!(file_rows(&app).await, 1);
}

#[tokio::test]
async fn an_upload_after_the_spool_folder_was_removed_is_stored_all_the_same() {
    let spool = tempfile::tempdir().unwrap();
    let folder = spool.path().join("spool");
    let dir = folder.clone();
    let app = spawn_app_with(move |config| config.spool_dir = dir).await;
    // A tmp cleaner removes the folder while the server runs.
    std::fs::remove_dir_all(&folder).unwrap();
    let image = png();
    assert_eq!(upload(&app, &image, "image/png").await.status(), 201);
    assert_eq!(file_rows(&app).await, 1);
    assert!(folder.is_dir(), "the folder is made again");
}

#[tokio::test]
async fn an_upload_declaring_more_than_the_room_left_is_413_before_its_body_is_read() {
    let spool = tempfile::tempdir().unwrap();
    let app = app_with(&spool, |config| config.file_quota_bytes = 10_000).await;
    let first = bytes_of(6000, 1);
    assert_eq!(upload(&app, &first, "image/png").await.status(), 201);

    // 6000 more declared, 4000 left: refused on the head alone, no byte of the body sent.
    let second = bytes_of(6000, 2);
    let token = app.session.clone().unwrap();
    let mut raw = RawUpload::start(&app, &token, &sha(&second), Some(second.len())).await;
    let head = raw
        .answer_head(Duration::from_secs(5))
        .await
        .expect("an answer without the body");
    assert_eq!(status_of(&head), 413, "{head}");
    assert!(head.contains("application/problem+json"), "{head}");
    assert!(spool_files(spool.path()).is_empty());
    assert_eq!(list(&app.client, &app).await.used_bytes, 6000);

    // A tiny file declared: it costs 4 KiB, which the 4000 bytes left cannot hold.
    let tiny = bytes_of(10, 3);
    let mut raw = RawUpload::start(&app, &token, &sha(&tiny), Some(tiny.len())).await;
    let head = raw
        .answer_head(Duration::from_secs(5))
        .await
        .expect("an answer without the body");
    assert_eq!(status_of(&head), 413, "{head}");
}

#[tokio::test]
async fn an_upload_slower_than_the_minimum_rate_after_its_start_is_408_and_leaves_nothing() {
    let spool = tempfile::tempdir().unwrap();
    let app = app_with(&spool, |config| {
        config.upload_min_rate = 1_000;
        config.upload_rate_after = Duration::from_secs(1);
    })
    .await;
    let bytes = bytes_of(10_000, 9);
    let token = app.session.clone().unwrap();
    let mut raw = RawUpload::start(&app, &token, &sha(&bytes), Some(bytes.len())).await;
    // A trickle, each piece well inside the body's idle timeout.
    raw.send(&bytes[..10]).await.unwrap();
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    raw.send(&bytes[10..20]).await.unwrap();
    let head = raw
        .answer_head(Duration::from_secs(5))
        .await
        .expect("an answer before the idle timeout");
    assert_eq!(status_of(&head), 408, "{head}");
    assert_eq!(spool_empties(spool.path()).await, Vec::<String>::new());
    assert_eq!(file_rows(&app).await, 0);
}
