//! An HTTP proxy on loopback that fails on purpose, between the clients and the server.
//!
//! For each `POST /api/notes`, by the configured rates: reset the connection before
//! forwarding (the server never sees it); answer 503 with `Retry-After` without
//! forwarding; delay; forward, then drop the server's answer and close the connection
//! (the server committed, the client sees a network error). A fault that closes the
//! connection is a handler error, which makes hyper close it without answering.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tokio::net::TcpListener;
use tokio::sync::Mutex;

/// Fault rates, each a probability per save request.
#[derive(Clone, Debug)]
pub struct Faults {
    /// Forward, let the server answer, then lose the answer.
    pub lose_answer: f64,
    /// Close the connection before forwarding.
    pub reset: f64,
    /// Answer 503 with `Retry-After` without forwarding.
    pub busy: f64,
    /// Seconds in that `Retry-After`.
    pub retry_after_secs: u64,
    /// Extra delay before forwarding, uniform in 0..=this.
    pub max_delay: Duration,
}

/// What the proxy did, counted.
#[derive(Default, Debug)]
pub struct ProxyCounts {
    pub forwarded: AtomicU64,
    pub lost_answers: AtomicU64,
    pub resets: AtomicU64,
    pub busy: AtomicU64,
    pub upstream_down: AtomicU64,
    /// Creates answered 200 (not 201): a retry that came after its key's row expired,
    /// answered from the note that carries the key.
    pub late_answers: AtomicU64,
}

impl ProxyCounts {
    pub fn get(counter: &AtomicU64) -> u64 {
        counter.load(Ordering::Relaxed)
    }
}

struct Shared {
    /// The servers behind the proxy (replicas), taken in turn.
    upstreams: Vec<String>,
    next: std::sync::atomic::AtomicUsize,
    client: reqwest::Client,
    faults: Faults,
    rng: Mutex<StdRng>,
    counts: Arc<ProxyCounts>,
}

#[derive(Debug)]
struct InjectedFault;

impl std::fmt::Display for InjectedFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("injected fault: connection closed")
    }
}

impl std::error::Error for InjectedFault {}

/// A running proxy.
pub struct FaultProxy {
    pub addr: SocketAddr,
    pub counts: Arc<ProxyCounts>,
}

impl FaultProxy {
    /// Listens on a free loopback port and forwards to `upstreams` (`http://127.0.0.1:…`),
    /// one request to each in turn, as a load balancer in front of replicas does.
    pub async fn start(upstreams: Vec<String>, faults: Faults, seed: u64) -> anyhow::Result<Self> {
        anyhow::ensure!(!upstreams.is_empty(), "a proxy needs a server behind it");
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let counts = Arc::new(ProxyCounts::default());
        let shared = Arc::new(Shared {
            upstreams,
            next: std::sync::atomic::AtomicUsize::new(0),
            client: reqwest::Client::builder()
                .timeout(Duration::from_secs(15))
                .build()?,
            faults,
            rng: Mutex::new(StdRng::seed_from_u64(seed)),
            counts: counts.clone(),
        });
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let shared = shared.clone();
                tokio::spawn(async move {
                    let service = service_fn(move |request| handle(shared.clone(), request));
                    // A connection ending in an injected fault is the point, not a problem.
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Ok(Self { addr, counts })
    }

    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

async fn handle(
    shared: Arc<Shared>,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, InjectedFault> {
    // Every write is faulted alike: creates, edits, moves to the trash and back.
    let is_save =
        request.method() != hyper::Method::GET && request.uri().path().starts_with("/api/notes");
    let is_create = request.method() == hyper::Method::POST && request.uri().path() == "/api/notes";
    let (before, after, delay) = {
        let mut rng = shared.rng.lock().await;
        let delay_ms = shared.faults.max_delay.as_millis() as u64;
        (
            rng.random::<f64>(),
            rng.random::<f64>(),
            Duration::from_millis(rng.random_range(0..=delay_ms)),
        )
    };
    let faults = &shared.faults;
    if is_save && before < faults.reset {
        shared.counts.resets.fetch_add(1, Ordering::Relaxed);
        return Err(InjectedFault);
    }
    if is_save && before < faults.reset + faults.busy {
        shared.counts.busy.fetch_add(1, Ordering::Relaxed);
        let problem = r#"{"type":"/problems/database-busy","title":"Service Unavailable","status":503,"detail":"injected by the fault proxy"}"#;
        return Ok(Response::builder()
            .status(StatusCode::SERVICE_UNAVAILABLE)
            .header("content-type", "application/problem+json")
            .header("retry-after", faults.retry_after_secs.to_string())
            .body(Full::new(Bytes::from_static(problem.as_bytes())))
            .expect("a valid response"));
    }
    if is_save && !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }

    let (parts, body) = request.into_parts();
    let body = body.collect().await.map_err(|_| InjectedFault)?.to_bytes();
    let url = format!(
        "{}{}",
        shared.upstreams[shared.next.fetch_add(1, Ordering::Relaxed) % shared.upstreams.len()],
        parts
            .uri
            .path_and_query()
            .map(|p| p.as_str())
            .unwrap_or("/")
    );
    let mut forward = shared.client.request(parts.method.clone(), url).body(body);
    for name in ["content-type", "idempotency-key", "cookie", "if-match"] {
        for value in parts.headers.get_all(name) {
            forward = forward.header(name, value.as_bytes());
        }
    }
    let answer = match forward.send().await {
        Ok(answer) => answer,
        Err(_) => {
            // The server is down (a kill in crash mode): the client sees a closed connection.
            shared.counts.upstream_down.fetch_add(1, Ordering::Relaxed);
            return Err(InjectedFault);
        }
    };
    shared.counts.forwarded.fetch_add(1, Ordering::Relaxed);
    let status = answer.status();
    if is_create && status.as_u16() == 200 {
        shared.counts.late_answers.fetch_add(1, Ordering::Relaxed);
    }
    let headers = answer.headers().clone();
    let bytes = answer.bytes().await.map_err(|_| InjectedFault)?;
    if is_save && after < faults.lose_answer {
        shared.counts.lost_answers.fetch_add(1, Ordering::Relaxed);
        return Err(InjectedFault);
    }
    let mut response = Response::builder().status(status.as_u16());
    for name in [
        "content-type",
        "location",
        "idempotent-replayed",
        "retry-after",
        "set-cookie",
    ] {
        for value in headers.get_all(name) {
            response = response.header(name, value.as_bytes());
        }
    }
    Ok(response.body(Full::new(bytes)).expect("a valid response"))
}
