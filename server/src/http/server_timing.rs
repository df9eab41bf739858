//! `Server-Timing` on the answers of the routes that ask for it: `<name>;dur=<ms>`, the
//! route's own time (its extractors, the work, the JSON made), then `total;dur=<ms>`, the
//! server's whole time on the request (also the `Host` check, the session's lookup and
//! every other layer), each to the answer's head. Not counted: reading the request off the
//! socket, compression, and the answer's way to the client. A browser shows both beside
//! its own timing of the request (`PerformanceResourceTiming.serverTiming`), so the wait
//! for an answer splits into the server's part and the way between.
//!
//! A route asks with [`stamp`]; [`total`] (the outermost layer) adds its figure only to
//! answers that already have one. Only the search asks, and only when the operator turns
//! it on (`ONCENOTE_SERVER_TIMING`: its time depends a little on other people's notes
//! too); never the sign-in, where a precise figure would help to tell a known name from
//! an unknown one.

use std::time::Instant;

use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;

pub const SERVER_TIMING: HeaderName = HeaderName::from_static("server-timing");

/// A route's layer (`from_fn_with_state(name, stamp)`): adds `<name>;dur=<ms>`.
pub async fn stamp(State(name): State<&'static str>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let mut response = next.run(request).await;
    add(&mut response, name, started);
    response
}

/// The outermost layer (`from_fn(total)`): adds `total;dur=<ms>` to an answer a route
/// stamped, and nothing to any other.
pub async fn total(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let mut response = next.run(request).await;
    if response.headers().contains_key(SERVER_TIMING) {
        add(&mut response, "total", started);
    }
    response
}

fn add(response: &mut Response, name: &str, started: Instant) {
    let took = started.elapsed().as_secs_f64() * 1000.0;
    if let Ok(value) = HeaderValue::from_str(&metric(name, took)) {
        response.headers_mut().append(SERVER_TIMING, value);
    }
}

/// One metric of the header: `name;dur=` the milliseconds, to a hundredth.
fn metric(name: &str, took_ms: f64) -> String {
    format!("{name};dur={took_ms:.2}")
}

/// The `dur` of metric `name` in a `Server-Timing` header's value, in milliseconds.
pub fn duration_of(header: &str, name: &str) -> Option<f64> {
    header.split(',').find_map(|metric| {
        let mut parts = metric.trim().split(';');
        if parts.next()?.trim() != name {
            return None;
        }
        parts.find_map(|param| {
            let (key, value) = param.split_once('=')?;
            if !key.trim().eq_ignore_ascii_case("dur") {
                return None;
            }
            value
                .trim()
                .trim_matches('"')
                .parse()
                .ok()
                .filter(|ms: &f64| ms.is_finite())
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_metric_written_is_read_back_by_its_name() {
        let header = format!("other;dur=1, {}", metric("search", 12.345));
        assert_eq!(duration_of(&header, "search"), Some(12.35));
        assert_eq!(duration_of(&header, "other"), Some(1.0));
        assert_eq!(duration_of(&header, "missing"), None);
    }

    #[test]
    fn a_metric_with_a_description_before_its_duration_is_read() {
        assert_eq!(duration_of("db;desc=\"x\";dur=3.5", "db"), Some(3.5));
        assert_eq!(duration_of("db; DUR = \"4\"", "db"), Some(4.0));
        assert_eq!(duration_of("db;dur=inf", "db"), None);
    }
}
