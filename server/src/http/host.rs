//! The `Host` check. A web page on another site can make a browser send requests to
//! 127.0.0.1 through a name it controls (DNS rebinding); such requests carry that name in
//! `Host`. The server answers only to IP addresses, `localhost`, and the names listed in
//! `ONCENOTE_ALLOWED_HOSTS` (the name a reverse proxy serves it under).

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

/// The host names the server answers to, besides IP addresses and `localhost`.
#[derive(Clone, Debug, Default)]
pub struct AllowedHosts(Arc<Vec<String>>);

impl AllowedHosts {
    pub fn new(names: Vec<String>) -> Self {
        Self(Arc::new(names))
    }

    /// Whether a `Host` value (`name`, `name:port`, `[v6]:port`) is one of ours.
    pub fn allows(&self, host: &str) -> bool {
        // A Host holds a name and a port, nothing more: `[::1]@evil.example` is no host.
        if host.contains(['@', '/', '\\', '?', '#']) || host.chars().any(char::is_whitespace) {
            return false;
        }
        let name = host_name(host).to_ascii_lowercase();
        let name = name.strip_suffix('.').unwrap_or(&name);
        name == "localhost"
            || name.parse::<IpAddr>().is_ok()
            || self.0.iter().any(|allowed| allowed == name)
    }
}

/// The name part of a `Host` value, without the port (and without IPv6 brackets).
fn host_name(host: &str) -> &str {
    let host = host.trim();
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

/// The one host a request names: its `Host` header, or the authority of its target (an
/// HTTP/2 request, an absolute URL). Two `Host` headers, or none at all (an HTTP/1.0
/// request may leave it out), name no host: the check cannot vouch for those.
fn named_host(request: &Request) -> Result<String, &'static str> {
    let mut hosts = request.headers().get_all(header::HOST).iter();
    match (hosts.next(), hosts.next()) {
        (Some(_), Some(_)) => Err("(two Host headers)"),
        (Some(host), None) => host
            .to_str()
            .map(str::to_owned)
            .map_err(|_| "(a Host that is not text)"),
        (None, _) => request
            .uri()
            .authority()
            .map(|a| a.to_string())
            .ok_or("(no Host)"),
    }
}

/// Refuses requests for a host that is not ours with 421 `unknown-host`.
pub async fn check(State(allowed): State<AllowedHosts>, request: Request, next: Next) -> Response {
    let refused = match named_host(&request) {
        Ok(host) if allowed.allows(&host) => None,
        Ok(host) => Some(host_name(&host).to_owned()),
        Err(why) => Some(why.to_owned()),
    };
    match refused {
        Some(host) => {
            let error = ApiError::UnknownHost(host);
            error.log(None);
            error.into_response()
        }
        None => next.run(request).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_with_user_information_or_a_path_is_refused() {
        let allowed = AllowedHosts::default();
        for host in [
            "[::1]@evil.example",
            "127.0.0.1@evil.example",
            "localhost/x",
            "a b",
        ] {
            assert!(!allowed.allows(host), "{host}");
        }
    }

    #[test]
    fn ip_addresses_and_localhost_are_always_allowed() {
        let allowed = AllowedHosts::default();
        for host in [
            "127.0.0.1:3000",
            "localhost:3000",
            "LOCALHOST",
            "[::1]:3000",
            "192.168.1.20",
        ] {
            assert!(allowed.allows(host), "{host}");
        }
    }

    #[test]
    fn other_names_are_refused_unless_listed() {
        let allowed = AllowedHosts::new(vec!["notes.example.com".into()]);
        assert!(allowed.allows("notes.example.com"));
        assert!(allowed.allows("Notes.Example.com:443"));
        assert!(allowed.allows("notes.example.com."));
        assert!(!allowed.allows("attacker.example:3000"));
        assert!(!allowed.allows("127.0.0.1.attacker.example"));
    }
}
