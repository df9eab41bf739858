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
//! - A request body that stalls is cut off by the router's body timeout (see `startup`).
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

/// The longest the server waits for requests in flight after a shutdown signal.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(30);

/// How long a refused connection is given to take its 503.
const REFUSAL_WRITE: Duration = Duration::from_secs(1);

/// The limits of the connection loop.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionLimits {
    /// For the first byte, for the headers, and for an idle keep-alive connection.
    pub header_timeout: Duration,
    /// Connections open at once.
    pub max_connections: usize,
}

/// Serves `router` on `listener` until `shutdown` resolves.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let header_timeout = limits.header_timeout;
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
        let Ok(place) = places.clone().try_acquire_owned() else {
            tokio::spawn(refuse(stream));
            continue;
        };
        let _ = stream.set_nodelay(true);
        let service = per_request(router.clone(), peer);
        let (builder, watcher) = (builder.clone(), graceful.watcher());
        tokio::spawn(async move {
            let _place = place;
            // hyper's header timeout starts at the first byte: wait for it here.
            let mut first = [0u8; 1];
            match tokio::time::timeout(header_timeout, stream.peek(&mut first)).await {
                Ok(Ok(n)) if n > 0 => {}
                _ => return,
            }
            // Built inside the watch: a connection held in a local of its own as well
            // would take its room twice in this task, for the connection's whole life.
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

/// Answers a connection past the cap with 503 and closes it, without reading it.
async fn refuse(mut stream: TcpStream) {
    let body = r#"{"type":"/problems/too-many-connections","title":"Too many connections","status":503,"detail":"the server has as many connections open as it allows; try again in a moment"}"#;
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json\r\n\
         Retry-After: 1\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(REFUSAL_WRITE, async {
        stream.write_all(answer.as_bytes()).await?;
        stream.shutdown().await
    })
    .await;
    refusals_logged();
}

/// Logs refused connections at most once a minute (a flood would otherwise flood the
/// log too), with how many were refused since the last line.
fn refusals_logged() {
    use std::sync::atomic::{AtomicU64, Ordering};
    static REFUSED: AtomicU64 = AtomicU64::new(0);
    static LOGGED_AT: AtomicU64 = AtomicU64::new(0);
    let refused = REFUSED.fetch_add(1, Ordering::Relaxed) + 1;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let last = LOGGED_AT.load(Ordering::Relaxed);
    if now >= last + 60
        && LOGGED_AT
            .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    {
        REFUSED.fetch_sub(refused, Ordering::Relaxed);
        tracing::warn!(
            refused,
            "connections refused: as many are open as ONCENOTE_MAX_CONNECTIONS allows"
        );
    }
}
