//! The connection loop: axum's router on hyper, with the limits a server on a network
//! needs and `axum::serve` does not set.
//!
//! - A client must send a request's headers within `header_timeout`, and an idle
//!   keep-alive connection is closed after the same time (hyper starts that clock
//!   whenever it waits for a request head), so a slowloris cannot hold connections open.
//! - A request body that stalls is cut off by the router's body timeout (see `startup`).
//! - On shutdown the listener closes, idle connections close at once, requests in flight
//!   finish (for at most `SHUTDOWN_GRACE`), then the function returns.

use std::future::Future;
use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tower::ServiceExt;

use crate::http::client::ClientAddr;

/// The longest the server waits for requests in flight after a shutdown signal.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(30);

/// Serves `router` on `listener` until `shutdown` resolves.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    header_timeout: Duration,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    builder
        .http2()
        .timer(TokioTimer::new())
        .keep_alive_interval(Some(header_timeout))
        .keep_alive_timeout(header_timeout);
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
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(router.clone().map_request(
            move |request: Request<Incoming>| {
                let mut request = request.map(axum::body::Body::new);
                request.extensions_mut().insert(ClientAddr(peer));
                request
            },
        ));
        let connection = builder
            .serve_connection_with_upgrades(TokioIo::new(stream), service)
            .into_owned();
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(error) = connection.await {
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
