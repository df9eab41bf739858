//! The server on a network: the `Host` check, security headers, timeouts for slow
//! clients, a shutdown that completes, and compression.

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::helpers::{TestApp, note_json, spawn_app, spawn_app_with};

async fn connect(app: &TestApp) -> TcpStream {
    TcpStream::connect(app.address.trim_start_matches("http://"))
        .await
        .expect("connect")
}

/// Reads until the server closes the connection (or `bound` passes); returns what came
/// and how long the server took to close.
async fn read_until_closed(stream: &mut TcpStream, bound: Duration) -> (Vec<u8>, Option<Duration>) {
    let started = Instant::now();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout_at(
            tokio::time::Instant::from_std(started + bound),
            stream.read(&mut buf),
        )
        .await
        {
            Ok(Ok(0)) | Ok(Err(_)) => return (got, Some(started.elapsed())),
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
            Err(_) => return (got, None),
        }
    }
}

#[tokio::test]
async fn a_request_for_a_host_name_that_is_not_ours_is_refused_with_421() {
    let app = spawn_app_with(|c| c.allowed_hosts = vec!["notes.example.com".into()]).await;
    let refused = app
        .send_raw(b"GET /healthz HTTP/1.1\r\nHost: rebinding.attacker.example:3000\r\nConnection: close\r\n\r\n")
        .await;
    assert_eq!(refused.status, 421);
    assert_eq!(
        refused.header("content-type"),
        Some("application/problem+json")
    );
    for host in [
        "localhost:3000",
        "127.0.0.1",
        "[::1]:3000",
        "notes.example.com",
    ] {
        let request = format!("GET /healthz HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
        assert_eq!(app.send_raw(request.as_bytes()).await.status, 200, "{host}");
    }
}

#[tokio::test]
async fn a_request_with_two_hosts_or_none_is_refused_with_421() {
    let app = spawn_app_with(|c| c.allowed_hosts = vec!["notes.example.com".into()]).await;
    for request in [
        &b"GET /healthz HTTP/1.1\r\nHost: notes.example.com\r\nHost: rebinding.attacker.example\r\nConnection: close\r\n\r\n"[..],
        &b"GET /healthz HTTP/1.1\r\nHost: rebinding.attacker.example\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"[..],
        &b"GET /healthz HTTP/1.0\r\n\r\n"[..],
    ] {
        let answer = app.send_raw(request).await;
        assert_eq!(answer.status, 421, "{}", String::from_utf8_lossy(request));
    }
    let one = app
        .send_raw(b"GET /healthz HTTP/1.0\r\nHost: notes.example.com\r\n\r\n")
        .await;
    assert_eq!(one.status, 200);
}

#[tokio::test]
async fn a_page_allows_only_its_own_scripts_and_those_with_this_responses_nonce() {
    let app = spawn_app().await;
    let first = app.get("/").await;
    let policy = first.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    let html = first.text().await.unwrap();
    assert!(policy.contains("frame-ancestors 'none'"), "{policy}");
    assert!(policy.contains("object-src 'none'"), "{policy}");
    assert!(!policy.contains("unsafe-inline"), "{policy}");
    let nonce = policy
        .split("'nonce-")
        .nth(1)
        .and_then(|rest| rest.split('\'').next())
        .expect("a nonce in the policy");
    let scripts = html.matches("<script").count();
    assert!(scripts > 0, "the page has its hydration script");
    assert_eq!(
        html.matches(&format!("nonce=\"{nonce}\"")).count(),
        scripts,
        "every inline script carries this response's nonce"
    );
    let second = app.get("/").await;
    assert!(
        !second.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .contains(nonce),
        "each response has its own nonce"
    );
}

/// The nonce in a page's policy, and whether every inline script of its HTML carries it.
async fn page_nonce_matches(response: reqwest::Response) -> Result<(), String> {
    let policy = response
        .headers()
        .get("content-security-policy")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let html = response.text().await.unwrap_or_default();
    let Some(nonce) = policy
        .split("'nonce-")
        .nth(1)
        .and_then(|rest| rest.split('\'').next())
    else {
        return Err(format!("a page's policy has no nonce: {policy}"));
    };
    if html.matches(&format!("nonce=\"{nonce}\"")).count() != html.matches("<script").count() {
        return Err("a page's scripts do not carry its policy's nonce".into());
    }
    Ok(())
}

// Pages load together with the favicon and the manifest. leptos_axum's static file
// handler made its owner a child of whatever reactive owner was current, and took the
// response headers of a page rendering at that moment: the page went out without its
// policy, and the browser refused to run it (it never hydrated).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_page_keeps_its_policy_while_static_files_are_served_beside_it() {
    let site = tempfile::tempdir().unwrap();
    std::fs::write(site.path().join("favicon.svg"), b"<svg/>").unwrap();
    let root = site.path().display().to_string();
    let app = spawn_app_with(move |c| c.site_root = root).await;
    let mut failures = Vec::new();
    for _ in 0..12 {
        let pages = (0..8).map(|_| {
            app.client
                .get(app.url("/"))
                .header("accept", "text/html")
                .send()
        });
        let files = (0..8).map(|_| app.client.get(app.url("/favicon.svg")).send());
        let (pages, files) = tokio::join!(
            futures::future::join_all(pages),
            futures::future::join_all(files)
        );
        for file in files {
            assert_eq!(file.expect("the server answers").status(), 200);
        }
        for page in pages {
            if let Err(failure) =
                page_nonce_matches(page.unwrap_or_else(|e| panic!("the server answers: {e:?}")))
                    .await
            {
                failures.push(failure);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of 96 pages: {:?}",
        failures.len(),
        failures.first()
    );
}

#[tokio::test]
async fn every_answer_says_nosniff_and_may_not_be_framed() {
    let app = spawn_app().await;
    for path in ["/", "/api/notes", "/healthz", "/sw.js", "/api/nothing"] {
        let response = app.get(path).await;
        let headers = response.headers();
        assert_eq!(headers["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(headers["x-frame-options"], "DENY", "{path}");
        assert!(headers.contains_key("referrer-policy"), "{path}");
        assert!(
            headers["content-security-policy"]
                .to_str()
                .unwrap()
                .contains("frame-ancestors 'none'"),
            "{path}"
        );
    }
}

#[tokio::test]
async fn a_client_that_never_finishes_its_headers_is_cut_off() {
    let app = spawn_app_with(|c| c.header_timeout = Duration::from_secs(1)).await;
    let mut stream = connect(&app).await;
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        .await
        .unwrap();
    let (_, closed_after) = read_until_closed(&mut stream, Duration::from_secs(10)).await;
    let closed_after = closed_after.expect("the server closed the connection");
    assert!(closed_after < Duration::from_secs(4), "{closed_after:?}");
}

#[tokio::test]
async fn a_connection_that_never_sends_a_byte_is_closed_after_the_header_timeout() {
    let app = spawn_app_with(|c| c.header_timeout = Duration::from_secs(1)).await;
    let mut stream = connect(&app).await;
    let (_, closed_after) = read_until_closed(&mut stream, Duration::from_secs(10)).await;
    let closed_after = closed_after.expect("the silent connection was closed");
    assert!(closed_after < Duration::from_secs(4), "{closed_after:?}");
}

#[tokio::test]
async fn past_the_connection_cap_a_client_is_refused_with_503_and_the_server_recovers() {
    let app = spawn_app_with(|c| {
        c.max_connections = 8;
        c.header_timeout = Duration::from_secs(30);
    })
    .await;
    // Eight connections that say nothing hold every place.
    let mut silent = Vec::new();
    for _ in 0..8 {
        silent.push(connect(&app).await);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let refused = app
        .send_raw(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .await;
    assert_eq!(refused.status, 503);
    assert_eq!(
        refused.header("content-type"),
        Some("application/problem+json")
    );
    assert!(refused.header("retry-after").is_some());
    assert!(String::from_utf8_lossy(&refused.body).contains("too-many-connections"));
    // As they go, the server answers again.
    drop(silent);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let answer = app
            .send_raw(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            .await;
        if answer.status == 200 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "still refused: {}",
            answer.status
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_after_the_header_timeout() {
    let app = spawn_app_with(|c| c.header_timeout = Duration::from_secs(1)).await;
    let mut stream = connect(&app).await;
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let (answer, closed_after) = read_until_closed(&mut stream, Duration::from_secs(10)).await;
    assert!(answer.starts_with(b"HTTP/1.1 200"));
    let closed_after = closed_after.expect("the idle connection was closed");
    assert!(closed_after < Duration::from_secs(4), "{closed_after:?}");
}

#[tokio::test]
async fn a_body_that_trickles_past_the_body_timeout_is_408_and_writes_nothing() {
    let app = spawn_app_with(|c| c.body_timeout = Duration::from_secs(1)).await;
    let mut stream = connect(&app).await;
    let head = format!(
        "POST /api/notes HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Cookie: oncenote_session={}\r\nIdempotency-Key: slow\r\nContent-Length: 100\r\n\r\n{{\"title\"",
        app.session.as_deref().unwrap_or_default()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let (answer, _) = read_until_closed(&mut stream, Duration::from_secs(5)).await;
    let text = String::from_utf8_lossy(&answer);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.contains("request-timeout"), "{text}");
    assert_eq!(app.note_count().await, 0);
}

#[tokio::test]
async fn shutdown_completes_while_an_idle_connection_is_open() {
    let mut app = spawn_app().await;
    let mut idle = connect(&app).await;
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let mut buf = [0u8; 1024];
    let n = idle.read(&mut buf).await.unwrap();
    assert!(buf[..n].starts_with(b"HTTP/1.1 200"));

    let took = app
        .shut_down(Duration::from_secs(10))
        .await
        .expect("the server stopped although a keep-alive connection was open");
    assert!(took < Duration::from_secs(3), "{took:?}");
}

#[tokio::test]
async fn after_a_graceful_shutdown_the_sqlite_file_alone_holds_every_write() {
    if crate::test_db::backend() != crate::test_db::Backend::Sqlite {
        return;
    }
    let mut app = spawn_app().await;
    let creates = (0..40).map(|n| {
        let app = &app;
        async move {
            app.create(&format!("kept {n}"), "written before the shutdown")
                .await
        }
    });
    futures::future::join_all(creates).await;
    // The test's own connection stays open across the shutdown, as a straggling handle
    // (or a backup tool reading the file) would: SQLite folds the WAL into the file at
    // the last connection's close, which is then not the server's.
    assert_eq!(app.note_count().await, 40);
    app.shut_down(Duration::from_secs(30))
        .await
        .expect("the server stopped");
    // The database file without its WAL, as a backup copied after a shutdown holds it.
    let file = app.database_url.trim_start_matches("sqlite://").to_owned();
    let copied = tempfile::tempdir().unwrap();
    let copy = copied.path().join("copy.db");
    std::fs::copy(&file, &copy).unwrap();
    let pool = sqlx::sqlite::SqlitePoolOptions::new()
        .connect_with(sqlx::sqlite::SqliteConnectOptions::new().filename(&copy))
        .await
        .unwrap();
    let notes: i64 = sqlx::query_scalar("SELECT count(*) FROM notes")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(
        notes, 40,
        "the copy holds every note created before the shutdown"
    );
}

#[tokio::test]
async fn json_answers_are_compressed_for_clients_that_accept_it() {
    let app = spawn_app().await;
    for n in 0..3 {
        app.post_note(Some(&format!("k{n}")), &note_json("Compressible"))
            .await;
    }
    let response = app
        .client
        .get(app.url("/api/notes"))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-encoding"], "gzip");
    let plain = app.get("/api/notes").await;
    assert!(plain.headers().get("content-encoding").is_none());
}

#[tokio::test]
async fn static_files_are_served_from_their_precompressed_copies() {
    let site = tempfile::tempdir().unwrap();
    let pkg = site.path().join("pkg");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(pkg.join("oncenote.abc.wasm"), b"\0asm plain").unwrap();
    std::fs::write(pkg.join("oncenote.abc.wasm.br"), b"brotli bytes").unwrap();
    std::fs::write(pkg.join("oncenote.abc.wasm.gz"), b"gzip bytes").unwrap();
    let root = site.path().display().to_string();
    let app = spawn_app_with(move |c| c.site_root = root).await;

    let fetch = |encoding: &'static str| {
        app.client
            .get(app.url("/pkg/oncenote.abc.wasm"))
            .header("accept-encoding", encoding)
            .send()
    };
    let br = fetch("br, gzip").await.unwrap();
    assert_eq!(br.headers()["content-encoding"], "br");
    assert_eq!(br.bytes().await.unwrap().as_ref(), b"brotli bytes");
    let gz = fetch("gzip").await.unwrap();
    assert_eq!(gz.headers()["content-encoding"], "gzip");
    assert_eq!(gz.bytes().await.unwrap().as_ref(), b"gzip bytes");
}

#[tokio::test]
async fn static_files_without_precompressed_copies_are_compressed_on_the_fly() {
    let site = tempfile::tempdir().unwrap();
    let pkg = site.path().join("pkg");
    std::fs::create_dir_all(&pkg).unwrap();
    let css = "body { margin: 0; padding: 0; }\n".repeat(200);
    std::fs::write(pkg.join("oncenote.abc.css"), &css).unwrap();
    let root = site.path().display().to_string();
    let app = spawn_app_with(move |c| c.site_root = root).await;

    let gz = app
        .client
        .get(app.url("/pkg/oncenote.abc.css"))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(gz.status(), 200);
    // ServeDir offers ranges on it (`Accept-Ranges`, dropped once compressed); that does
    // not keep it from being compressed.
    assert_eq!(gz.headers()["content-encoding"], "gzip");
    assert!(gz.bytes().await.unwrap().len() < css.len());
}

// leptos_server stops every resource from loading, process-wide, while any app generates
// its route list; a page whose resource was first polled in that moment waited forever.
// Several apps in one process (these tests, a replica started beside another) must not
// make another app's pages hang.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn pages_answer_while_another_app_in_the_process_starts() {
    let app = spawn_app().await;
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    let token = app.session.clone().unwrap();
    let pages = async {
        for _ in 0..30 {
            let loads = (0..8).map(|_| {
                client
                    .get(app.url("/"))
                    .header("cookie", format!("oncenote_session={token}"))
                    .send()
            });
            for load in futures::future::join_all(loads).await {
                let page = load.expect("a page answers within 10 s");
                assert_eq!(page.status(), 200);
            }
        }
    };
    let starts = async {
        for _ in 0..6 {
            let other = spawn_app().await;
            drop(other);
        }
    };
    tokio::join!(pages, starts);
}
