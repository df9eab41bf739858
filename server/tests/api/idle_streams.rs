//! What idle live streams cost the server binary in resident memory: the figure the
//! benchmark projects to 10,000 streams (`bench --only live`, target ≤ 150 MB), here for
//! a thousand on the test build. Memory, not time: what other work the machine does
//! does not move it.

use std::net::TcpStream;
use std::time::Duration;

use crate::server_process::{ServerProcess, resident_bytes};
use crate::sse_socket::open_stream;

const STREAMS: usize = 1_000;
/// Streams opened before the count starts.
const WARM: usize = 100;

/// With glibc's allocator each stream took 15.5-15.9 KiB of the test build's resident
/// memory (the release build's 15.6): hyper's fixed 8 KiB read and write buffers cost the
/// pages glibc writes its chunk headers on as well as those written to. With jemalloc
/// (the binary's allocator since 2026-12-06), 9.7-10.2 KiB.
const MOST_KIB_PER_STREAM: u64 = 12;

#[tokio::test]
async fn an_idle_live_stream_adds_at_most_12_kib_to_the_servers_resident_memory() {
    // This process holds a thousand sockets too, and the server takes streams up to half
    // its connections, which its own open-file limit caps.
    let open_files = server::open_files::raise_to_hard_limit().unwrap_or(0);
    assert!(
        open_files >= (STREAMS as u64 + WARM as u64) * 2 + 200,
        "this test opens {} streams: it needs an open-file limit of {} or more, and the hard \
         limit here is {open_files} (ulimit -Hn)",
        STREAMS + WARM,
        (STREAMS + WARM) * 2 + 200
    );
    let data = tempfile::tempdir().unwrap();
    // Streams are capped at half the connections.
    let many = (STREAMS * 4).to_string();
    let server = ServerProcess::start(&[
        (
            "DATABASE_URL",
            format!("sqlite://{}", data.path().join("streams.db").display()),
        ),
        ("ONCENOTE_STREAMS_PER_PERSON", many.clone()),
        ("ONCENOTE_STREAMS_MAX", many.clone()),
        ("ONCENOTE_MAX_CONNECTIONS", many),
        // Every stream comes from this one address.
        ("ONCENOTE_MAX_CONNECTIONS_PER_ADDRESS", "0".into()),
    ])
    .await;
    let cookie = server.admin_cookie().await;
    let address = server.address.trim_start_matches("http://").to_owned();
    let pid = server.child.id();

    let (before, after) = tokio::task::spawn_blocking(move || {
        // Some first, so that what the first streams alone set up (the allocator's arenas
        // and caches of each worker thread, the person's place in the hub) is not counted.
        let warm: Vec<TcpStream> = (0..WARM).map(|_| open_stream(&address, &cookie)).collect();
        std::thread::sleep(Duration::from_millis(300));
        let before = resident_bytes(pid);
        let streams: Vec<TcpStream> = (0..STREAMS)
            .map(|_| open_stream(&address, &cookie))
            .collect();
        std::thread::sleep(Duration::from_millis(300));
        let after = resident_bytes(pid);
        drop((warm, streams));
        (before, after)
    })
    .await
    .unwrap();
    assert!(
        before > 0,
        "the server's resident memory could not be read from /proc"
    );
    let per_stream_kib = after.saturating_sub(before) as f64 / 1024.0 / STREAMS as f64;
    eprintln!(
        "{STREAMS} idle streams: the server's resident memory {} → {} KiB, {per_stream_kib:.1} KiB a stream",
        before >> 10,
        after >> 10
    );
    assert!(
        per_stream_kib <= MOST_KIB_PER_STREAM as f64,
        "each idle stream took {per_stream_kib:.1} KiB of the server's resident memory; at most {MOST_KIB_PER_STREAM} expected"
    );
}
