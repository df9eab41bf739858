//! What an idle live stream costs the server: the heap it holds while it waits, counted
//! by this binary's own allocator. A test binary of its own, so that no other test's
//! allocations are counted; the streams are opened with plain sockets, whose reads and
//! writes allocate nothing, so the count is the server's.
//!
//! The benchmark (`bench --only live`) measures the resident memory of 10,000 streams on
//! the release build; this test keeps the heap behind that figure from growing back.

use std::alloc::{GlobalAlloc, Layout, System};
use std::net::TcpStream;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Duration;

use server::config::Config;
use server::startup::Application;

mod sse_socket;
use sse_socket::open_stream;

/// The system allocator, counting the bytes it has handed out and not been given back.
struct Counting;

static LIVE_BYTES: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is passed to the system allocator unchanged; only a counter is kept.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            LIVE_BYTES.fetch_add(layout.size() as isize, Ordering::Relaxed);
        }
        pointer
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let pointer = unsafe { System.alloc_zeroed(layout) };
        if !pointer.is_null() {
            LIVE_BYTES.fetch_add(layout.size() as isize, Ordering::Relaxed);
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        unsafe { System.dealloc(pointer, layout) };
        LIVE_BYTES.fetch_sub(layout.size() as isize, Ordering::Relaxed);
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = unsafe { System.realloc(pointer, layout, new_size) };
        if !moved.is_null() {
            LIVE_BYTES.fetch_add(
                new_size as isize - layout.size() as isize,
                Ordering::Relaxed,
            );
        }
        moved
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const STREAMS: usize = 200;

/// hyper's read and write buffers (8 KiB each, for every connection), the response head
/// hyper keeps for the next answer, the connection's task and the stream: 21,183 bytes in
/// the test build (2026-12-06; 21,466 before the router's future was boxed, the task held
/// the connection once and the stream's reads were boxed). A stream whose body passed the
/// compression layer held 5,821 more (27,278): that layer's body, with room for every
/// encoder's state.
const MOST_PER_STREAM: usize = 22 * 1024;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_live_stream_holds_at_most_22_kib_of_the_servers_heap() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut config = Config::for_tests(format!(
        "sqlite://{}",
        dir.path().join("streams.db").display()
    ));
    config.admin = Some(("streams".into(), "streams password 1".into()));
    config.streams_per_person = STREAMS + 10;
    // Every stream comes from this one address.
    config.max_per_address = 0;
    let app = Application::build(config).await.expect("the server starts");
    let address = app.local_addr().to_string();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app.run_until(async move {
        let _ = stopped.await;
    }));

    let signed_in = reqwest::Client::new()
        .post(format!("http://{address}/api/session"))
        .json(&serde_json::json!({ "username": "streams", "password": "streams password 1" }))
        .send()
        .await
        .expect("the sign-in");
    assert!(signed_in.status().is_success(), "{}", signed_in.status());
    let cookie = signed_in
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("oncenote_session="))
        .and_then(|v| v.split(';').next())
        .expect("a session cookie")
        .to_owned();

    let counted = tokio::task::spawn_blocking(move || {
        // A first few streams, so that what the first stream alone sets up is not counted.
        let warm: Vec<TcpStream> = (0..5).map(|_| open_stream(&address, &cookie)).collect();
        std::thread::sleep(Duration::from_millis(300));
        let before = LIVE_BYTES.load(Ordering::Relaxed);
        let streams: Vec<TcpStream> = (0..STREAMS)
            .map(|_| open_stream(&address, &cookie))
            .collect();
        std::thread::sleep(Duration::from_millis(300));
        let after = LIVE_BYTES.load(Ordering::Relaxed);
        drop((warm, streams));
        (after - before) as usize / STREAMS
    })
    .await
    .expect("the streams");

    let _ = stop.send(());
    let _ = server.await;
    assert!(
        counted <= MOST_PER_STREAM,
        "each idle stream holds {counted} bytes of the server's heap; at most {MOST_PER_STREAM} expected"
    );
    eprintln!("each idle stream holds {counted} bytes of the server's heap");
}
