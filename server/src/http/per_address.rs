//! How many connections (or, behind a trusted proxy, requests) one client address holds
//! at once.
//!
//! What do 60 connections from one address do? Without a bound each takes a place of the
//! server's [`ONCENOTE_MAX_CONNECTIONS`](crate::config::Config::max_connections) for as
//! long as its request takes to send and its answer to be read, so one client could hold
//! every place and answer everyone else — and `/healthz` — with 503. With one, an address
//! holds at most [`Config::max_per_address`](crate::config::Config::max_per_address)
//! places; past it its next connection is answered 429 at once and closed.
//!
//! Behind a reverse proxy every connection comes from the proxy, so the connection loop
//! does not count a trusted proxy's connections; the router counts each request (and its
//! answer's body, until it is sent) under the address the proxy forwarded instead.
//! Addresses are counted as the sign-in limits count them: an IPv6 address by its /64.

use std::collections::HashMap;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body::{Frame, SizeHint};

use crate::config::Config;
use crate::http::client::{ClientAddr, client_ip, counted_address};

/// The places each address holds now.
#[derive(Debug)]
pub struct AddressPlaces {
    max: usize,
    held: Mutex<HashMap<IpAddr, usize>>,
}

impl AddressPlaces {
    /// At most `max` places an address; 0 for no bound.
    pub fn new(max: usize) -> Arc<Self> {
        Arc::new(Self {
            max,
            held: Mutex::default(),
        })
    }

    /// A place for `client` (held until the place is dropped), or `None` when the address
    /// holds all its own.
    pub fn take(self: &Arc<Self>, client: IpAddr) -> Option<AddressPlace> {
        let key = counted_address(client);
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        let count = held.entry(key).or_insert(0);
        if self.max > 0 && *count >= self.max {
            if *count == 0 {
                held.remove(&key);
            }
            return None;
        }
        *count += 1;
        Some(AddressPlace {
            places: Arc::clone(self),
            key,
        })
    }

    /// Places `client`'s address holds now (for tests).
    pub fn held_by(&self, client: IpAddr) -> usize {
        let held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        held.get(&counted_address(client)).copied().unwrap_or(0)
    }
}

/// One place of an address; dropping it gives the place back.
#[derive(Debug)]
pub struct AddressPlace {
    places: Arc<AddressPlaces>,
    key: IpAddr,
}

impl Drop for AddressPlace {
    fn drop(&mut self) {
        let mut held = self
            .places
            .held
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = held.get_mut(&self.key) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                held.remove(&self.key);
            }
        }
    }
}

/// The refusal of an address past its places, as the connection loop writes it on a
/// socket it will not read.
pub const REFUSAL_BODY: &str = r#"{"type":"/problems/too-many-connections-from-address","title":"Too many connections from this address","status":429,"detail":"this address has as many connections open as one address may; close some, or try again in a moment"}"#;

/// What the router's layer needs: the places, and which proxies are trusted.
#[derive(Clone)]
pub struct ProxiedRequests {
    pub places: Arc<AddressPlaces>,
    pub config: Arc<Config>,
}

/// The router's layer: a request that came through a trusted proxy takes a place under
/// the address the proxy forwarded, held until its answer's body is sent (or dropped).
/// Requests straight from a client were counted by the connection loop.
pub async fn through_a_proxy(
    State(proxied): State<ProxiedRequests>,
    request: Request,
    next: Next,
) -> Response {
    let peer = request.extensions().get::<ClientAddr>().copied();
    let from_proxy = peer.is_some_and(|p| {
        proxied
            .config
            .trusted_proxies
            .contains(&p.0.ip().to_canonical())
    });
    if !from_proxy {
        return next.run(request).await;
    }
    let client = client_ip(request.headers(), peer, &proxied.config);
    let Some(place) = proxied.places.take(client) else {
        return refused();
    };
    let response = next.run(request).await;
    response.map(|body| {
        Body::new(Held {
            body,
            _place: place,
        })
    })
}

/// 429 `too-many-connections-from-address`, for a request through a proxy.
fn refused() -> Response {
    let mut response = (StatusCode::TOO_MANY_REQUESTS, REFUSAL_BODY).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/problem+json"),
    );
    headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

/// An answer's body holding its address's place until it is sent or dropped.
struct Held {
    body: Body,
    _place: AddressPlace,
}

impl http_body::Body for Held {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_gets_its_places_and_one_back_when_dropped_and_others_are_apart() {
        let places = AddressPlaces::new(2);
        let a: IpAddr = "203.0.113.9".parse().unwrap();
        let b: IpAddr = "198.51.100.4".parse().unwrap();
        let first = places.take(a).unwrap();
        let _second = places.take(a).unwrap();
        assert!(places.take(a).is_none());
        let _other = places.take(b).unwrap();
        drop(first);
        assert_eq!(places.held_by(a), 1);
        assert!(places.take(a).is_some());
    }

    #[test]
    fn an_ipv6_client_counts_by_its_64_and_no_bound_is_zero() {
        let places = AddressPlaces::new(1);
        let one: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let same_64: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let _held = places.take(one).unwrap();
        assert!(places.take(same_64).is_none());
        let unbounded = AddressPlaces::new(0);
        let held: Vec<_> = (0..1000).map(|_| unbounded.take(one).unwrap()).collect();
        assert_eq!(unbounded.held_by(one), held.len());
    }
}
