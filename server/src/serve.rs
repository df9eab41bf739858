//! The connection loop: axum's router on hyper, with the limits a server on a network
//! needs and `axum::serve` does not set.
//!
//! - A new connection must send its first byte within `header_timeout` (hyper's header
//!   clock starts only at the first byte, so a connection that says nothing was kept
//!   forever), then its headers within `header_timeout`; an idle keep-alive connection is
//!   closed after the same time. A slowloris cannot hold connections open.
//! - At most `max_connections` are open at once. Past that a connection is answered at
//!   once with 503 `too-many-connections` (problem+json, `Retry-After`) and closed, so a
//!   flood of connections cannot use up the process's file descriptors and starve the
//!   database and `/healthz` (see `open_files`).
//! - At most `max_per_address` of them come from one client address; past that its next
//!   one is answered 429 `too-many-connections-from-address` and closed, so one client
//!   cannot take every place (`http::per_address`; a trusted proxy's connections are not
//!   counted here but by the router, per forwarded address).
//! - A request body that stalls is cut off by the router's body timeout (see `startup`);
//!   an answer the client stops taking, by `send_timeout` (`http::stalled_writes`).
//! - On shutdown the listener closes, idle connections close at once, requests in flight
//!   finish (for at most `SHUTDOWN_GRACE`), then the function returns.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use futures::FutureExt;
use futures::future::BoxFuture;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::Service;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tower::ServiceExt;

use crate::http::client::ClientAddr;
use crate::http::per_address::{self, AddressPlaces};
use crate::http::stalled_writes::StalledWrites;

/// The longest the server waits for requests in flight after a shutdown signal.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(30);

/// How long a refused connection is given to take its 503.
const REFUSAL_WRITE: Duration = Duration::from_secs(1);

/// The limits of the connection loop.
#[derive(Clone, Debug)]
pub struct ConnectionLimits {
    /// For the first byte, for the headers, and for an idle keep-alive connection.
    pub header_timeout: Duration,
    /// Connections open at once.
    pub max_connections: usize,
    /// Connections open at once from one client address (0: no bound); a trusted
    /// proxy's are not counted.
    pub max_per_address: usize,
    /// The reverse proxies, whose connections carry many clients.
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// How long an answer may wait for the client to take a byte of it.
    pub send_timeout: Duration,
}

/// Serves `router` on `listener` until `shutdown` resolves.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let header_timeout = limits.header_timeout;
    let send_timeout = limits.send_timeout;
    let per_address = AddressPlaces::new(limits.max_per_address);
    // HTTP/1.1 only. Browsers speak HTTP/2 only over TLS, which the reverse proxy ends;
    // cleartext HTTP/2 would let a client hold a connection with PINGs, or stall the
    // version detection after one byte of its preface, outside every timer here. hyper's
    // own HTTP/1 connection (not the auto-detecting one, whose every connection carries
    // room for an HTTP/2 state too): an idle connection, and each live stream, holds less.
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    let builder = Arc::new(builder);
    let places = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors and the like: pause rather than spin.
                    tracing::warn!(?error, "could not accept a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // The address's place first: a client past its own share is told so, and takes
        // none of the server's.
        // An IPv4 client of a `[::]` listener arrives as `::ffff:a.b.c.d`: canonical, it is
        // the address the operator wrote.
        let address_place = if limits.trusted_proxies.contains(&peer.ip().to_canonical()) {
            None
        } else {
            match per_address.take(peer.ip()) {
                Some(place) => Some(place),
                None => {
                    tokio::spawn(refuse(stream, Refusal::AddressFull));
                    continue;
                }
            }
        };
        let Ok(place) = places.clone().try_acquire_owned() else {
            tokio::spawn(refuse(stream, Refusal::ServerFull));
            continue;
        };
        let _ = stream.set_nodelay(true);
        let service = per_request(router.clone(), peer);
        let (builder, watcher) = (builder.clone(), graceful.watcher());
        tokio::spawn(async move {
            let _places = (place, address_place);
            // hyper's header timeout starts at the first byte: wait for it here.
            let mut first = [0u8; 1];
            match tokio::time::timeout(header_timeout, stream.peek(&mut first)).await {
                Ok(Ok(n)) if n > 0 => {}
                _ => return,
            }
            // Built inside the watch: a connection held in a local of its own as well
            // would take its room twice in this task, for the connection's whole life.
            let stream = StalledWrites::new(stream, send_timeout);
            let watched = watcher.watch(builder.serve_connection(TokioIo::new(stream), service));
            if let Err(error) = watched.await {
                tracing::debug!(error = %error, "connection ended with an error");
            }
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => tracing::info!("every connection closed"),
        () = tokio::time::sleep(SHUTDOWN_GRACE) => {
            tracing::warn!("requests still running after {SHUTDOWN_GRACE:?}; stopping anyway");
        }
    }
    Ok(())
}

/// The router as hyper calls it for each request of a connection from `peer`, its
/// future boxed. hyper keeps a connection's room for a request's future (the router's,
/// 320 bytes in the test build) from its first request until it closes, so a live stream, whose
/// request is long answered, held that room for nothing; a boxed future is freed when
/// the request is answered, and the room kept is a pointer's.
fn per_request(
    router: Router,
    peer: std::net::SocketAddr,
) -> impl hyper::service::Service<
    Request<Incoming>,
    Response = axum::response::Response,
    Error = std::convert::Infallible,
    Future = BoxFuture<'static, Result<axum::response::Response, std::convert::Infallible>>,
> + Clone {
    let service =
        TowerToHyperService::new(router.map_request(move |request: Request<Incoming>| {
            let mut request = request.map(axum::body::Body::new);
            request.extensions_mut().insert(ClientAddr(peer));
            request
        }));
    hyper::service::service_fn(move |request| service.call(request).boxed())
}

/// Why a connection is refused unread.
#[derive(Clone, Copy)]
enum Refusal {
    /// The server has as many connections as it allows.
    ServerFull,
    /// The client's address has as many as one address may.
    AddressFull,
}

impl Refusal {
    fn status_line(self) -> &'static str {
        match self {
            Refusal::ServerFull => "503 Service Unavailable",
            Refusal::AddressFull => "429 Too Many Requests",
        }
    }

    fn body(self) -> &'static str {
        match self {
            Refusal::ServerFull => {
                r#"{"type":"/problems/too-many-connections","title":"Too many connections","status":503,"detail":"the server has as many connections open as it allows; try again in a moment"}"#
            }
            Refusal::AddressFull => per_address::REFUSAL_BODY,
        }
    }
}

/// Answers a connection that gets no place with its refusal and closes it, unread.
async fn refuse(mut stream: TcpStream, why: Refusal) {
    let body = why.body();
    let answer = format!(
        "HTTP/1.1 {}\r\nContent-Type: application/problem+json\r\n\
         Retry-After: 1\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        why.status_line(),
        body.len()
    );
    let _ = tokio::time::timeout(REFUSAL_WRITE, async {
        stream.write_all(answer.as_bytes()).await?;
        stream.shutdown().await
    })
    .await;
    refusals_logged(why);
}

/// Logs refused connections at most once a minute for each reason (a flood would
/// otherwise flood the log too), with how many were refused since the last line.
fn refusals_logged(why: Refusal) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static REFUSED: [AtomicU64; 2] = [AtomicU64::new(0), AtomicU64::new(0)];
    static LOGGED_AT: [AtomicU64; 2] = [AtomicU64::new(0), AtomicU64::new(0)];
    let (refused_count, logged_at, message) = match why {
        Refusal::ServerFull => (
            &REFUSED[0],
            &LOGGED_AT[0],
            "connections refused: as many are open as ONCENOTE_MAX_CONNECTIONS allows",
        ),
        Refusal::AddressFull => (
            &REFUSED[1],
            &LOGGED_AT[1],
            "connections refused: their address has as many open as \
             ONCENOTE_MAX_CONNECTIONS_PER_ADDRESS allows",
        ),
    };
    let refused = refused_count.fetch_add(1, Ordering::Relaxed) + 1;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let last = logged_at.load(Ordering::Relaxed);
    if now >= last + 60
        && logged_at
            .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    {
        refused_count.fetch_sub(refused, Ordering::Relaxed);
        tracing::warn!(refused, "{message}");
    }
}
