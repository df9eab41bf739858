//! What one client may hold of the server: an answer it never reads is cut off after the
//! send timeout, and one address (or, behind a trusted proxy, one forwarded address)
//! holds only its share of the connections — the outside review's 40 sockets that asked
//! for a large file and never read held every place of a 40-connection server.

use std::net::SocketAddr;
use std::time::Duration;

use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::helpers::{TestApp, spawn_app_with};

/// A file of `bytes` that does not compress, kept by the admin; its address.
async fn large_file(app: &TestApp, bytes: usize) -> String {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let data: Vec<u8> = (0..bytes)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    let sha = hex::encode(Sha256::digest(&data));
    let stored = app
        .client
        .put(app.url(&format!("/api/files/{sha}")))
        .header("content-type", "application/octet-stream")
        .body(data)
        .send()
        .await
        .unwrap();
    assert!(stored.status().is_success(), "{}", stored.status());
    sha
}

fn server_addr(app: &TestApp) -> SocketAddr {
    app.address.trim_start_matches("http://").parse().unwrap()
}

/// A connection from `from` (any 127.x.y.z is this machine) that takes little at a time.
async fn connect_from(app: &TestApp, from: [u8; 4]) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::from((from, 0))).unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    socket.connect(server_addr(app)).await.unwrap()
}

/// A connection from `from` that asks for `path` and then never reads.
async fn asks_and_never_reads(app: &TestApp, from: [u8; 4], path: &str, extra: &str) -> TcpStream {
    let mut stream = connect_from(app, from).await;
    let cookie = app.session.as_deref().unwrap();
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: oncenote_session={cookie}\r\n{extra}\r\n"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    stream
}

/// The status of `GET /healthz` on a connection from `from` (0 when there is no answer).
async fn health_from(app: &TestApp, from: [u8; 4], extra: &str) -> u16 {
    let mut stream = connect_from(app, from).await;
    let request =
        format!("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n{extra}\r\n");
    if stream.write_all(request.as_bytes()).await.is_err() {
        return 0;
    }
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer)).await;
    let head = String::from_utf8_lossy(&answer);
    head.split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

#[tokio::test]
async fn an_answer_the_client_stops_reading_is_cut_off_after_the_send_timeout() {
    let app = spawn_app_with(|c| c.send_timeout = Duration::from_secs(2)).await;
    let size = 16 << 20;
    let sha = large_file(&app, size).await;
    let mut stream = asks_and_never_reads(&app, [127, 0, 0, 1], &format!("/files/{sha}"), "").await;
    // More than the send timeout without taking a byte: the socket's buffers fill long
    // before 16 MiB, and the server's write waits.
    tokio::time::sleep(Duration::from_secs(6)).await;
    let mut got = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut got)).await;
    assert!(read.is_ok(), "the connection was still open after 36 s");
    assert!(
        got.len() < size,
        "the whole answer ({} bytes) waited for a reader that did not read",
        got.len()
    );
}

#[tokio::test]
async fn one_address_past_its_connections_is_refused_with_429_and_other_addresses_are_served() {
    let app = spawn_app_with(|c| {
        c.max_per_address = 4;
        c.header_timeout = Duration::from_secs(30);
    })
    .await;
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(connect_from(&app, [127, 0, 0, 2]).await);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut refused = connect_from(&app, [127, 0, 0, 2]).await;
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), refused.read_to_end(&mut answer))
        .await
        .expect("the refusal comes unasked")
        .unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 429"), "{answer}");
    assert!(answer.contains("retry-after: 1") || answer.contains("Retry-After: 1"));
    assert!(
        answer.contains("too-many-connections-from-address"),
        "{answer}"
    );
    assert_eq!(health_from(&app, [127, 0, 0, 3], "").await, 200);
    drop(held);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(health_from(&app, [127, 0, 0, 2], "").await, 200);
}

#[tokio::test]
async fn forty_clients_that_never_read_hold_only_their_address_s_share_and_then_let_go() {
    // The outside review's attack, on a server of 40 connections.
    let app = spawn_app_with(|c| {
        c.max_connections = 40;
        c.max_per_address = 8;
        c.send_timeout = Duration::from_secs(3);
        c.header_timeout = Duration::from_secs(30);
    })
    .await;
    let sha = large_file(&app, 16 << 20).await;
    let mut attackers = Vec::new();
    for _ in 0..40 {
        attackers
            .push(asks_and_never_reads(&app, [127, 0, 0, 2], &format!("/files/{sha}"), "").await);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    // Everyone else is served at once.
    assert_eq!(health_from(&app, [127, 0, 0, 3], "").await, 200);
    // And once the send timeout has cut the stalled answers off, the attacker's own
    // address is served again, though its sockets are still open on its side.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        if health_from(&app, [127, 0, 0, 2], "").await == 200 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the stalled answers still hold the address's places"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    drop(attackers);
}

#[tokio::test]
async fn behind_a_trusted_proxy_each_forwarded_address_gets_its_share_of_requests() {
    let app = spawn_app_with(|c| {
        c.max_per_address = 2;
        c.trusted_proxies = vec!["127.0.0.1".parse().unwrap()];
        c.send_timeout = Duration::from_secs(60);
    })
    .await;
    let sha = large_file(&app, 16 << 20).await;
    // The proxy's connections are not counted by address: it carries many clients.
    let from = "X-Forwarded-For: 203.0.113.9\r\n";
    let mut stalled = Vec::new();
    for _ in 0..2 {
        stalled
            .push(asks_and_never_reads(&app, [127, 0, 0, 1], &format!("/files/{sha}"), from).await);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(health_from(&app, [127, 0, 0, 1], from).await, 429);
    let other = "X-Forwarded-For: 198.51.100.4\r\n";
    assert_eq!(health_from(&app, [127, 0, 0, 1], other).await, 200);
    // A forwarded address's place goes back with its answer.
    drop(stalled);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while health_from(&app, [127, 0, 0, 1], from).await != 200 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the places never came back"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn an_export_whose_reader_never_reads_gives_its_place_back_after_the_send_timeout() {
    let app = spawn_app_with(|c| c.send_timeout = Duration::from_secs(2)).await;
    // An export larger than every buffer between the server and a reader that stops.
    large_file(&app, 16 << 20).await;
    let stalled = asks_and_never_reads(&app, [127, 0, 0, 1], "/api/export", "").await;
    // Its answer has begun (peeked: nothing is taken off the socket).
    let mut first_byte = [0u8; 1];
    tokio::time::timeout(Duration::from_secs(30), stalled.peek(&mut first_byte))
        .await
        .expect("the export's answer begins")
        .unwrap();
    // One export of a person's at once: while the first is sent, a second is 429; once
    // the send timeout has cut the first off, the second is made.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    let mut refused_meanwhile = false;
    loop {
        let second = app.client.get(app.url("/api/export")).send().await.unwrap();
        match second.status().as_u16() {
            200 => {
                let zip = second.bytes().await.unwrap();
                assert!(zip.len() > 16 << 20);
                break;
            }
            429 => refused_meanwhile = true,
            other => panic!("the second export: {other}"),
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the export nobody read still holds its place"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert!(
        refused_meanwhile,
        "the first export held its place while it was sent"
    );
    drop(stalled);
}

#[tokio::test]
async fn a_live_stream_that_is_read_outlives_the_send_timeout_while_nothing_happens() {
    let app = spawn_app_with(|c| c.send_timeout = Duration::from_secs(1)).await;
    let mut stream =
        crate::live_events::EventStream::open(&app.client, &app.address, None, None).await;
    // Idle for four send timeouts: nothing was written, so nothing waited on the client.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let note = app.create("Still there", "x").await;
    let event = stream.expect(Duration::from_secs(10)).await;
    assert_eq!(event.change().note_id, note.id);
}
