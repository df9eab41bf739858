//! Who is asking: the client's address (for sign-in limits) and whether it came over
//! HTTPS (for `Secure` cookies). A reverse proxy's `X-Forwarded-For` and
//! `X-Forwarded-Proto` are believed only from the addresses in `ONCENOTE_TRUSTED_PROXIES`.

use std::net::{IpAddr, SocketAddr};

use axum::http::HeaderMap;

use crate::config::Config;

/// The address a connection came from (set by the connection loop).
#[derive(Clone, Copy, Debug)]
pub struct ClientAddr(pub SocketAddr);

/// The client's address: the connection's, or — from a trusted proxy — the last address
/// that proxy put in `X-Forwarded-For`.
pub fn client_ip(headers: &HeaderMap, peer: Option<ClientAddr>, config: &Config) -> IpAddr {
    let peer_ip = peer.map_or(IpAddr::from([0, 0, 0, 0]), |p| p.0.ip().to_canonical());
    if !config.trusted_proxies.contains(&peer_ip) {
        return peer_ip;
    }
    headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|a| a.trim().parse::<IpAddr>().ok())
        .next_back()
        .unwrap_or(peer_ip)
}

/// The address limits count a client under: an IPv4 address as it is, an IPv6 address
/// by its /64 (one household or server gets a whole /64; counting single IPv6 addresses
/// would give one client 2^64 counts), an IPv4 address mapped into IPv6 as IPv4.
pub fn counted_address(client: IpAddr) -> IpAddr {
    match client {
        IpAddr::V4(_) => client,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

/// Whether the request reached the server over HTTPS: the public address says so, or a
/// trusted proxy does.
pub fn is_https(headers: &HeaderMap, peer: Option<ClientAddr>, config: &Config) -> bool {
    if config.public_https() {
        return true;
    }
    let trusted = peer.is_some_and(|p| config.trusted_proxies.contains(&p.0.ip().to_canonical()));
    trusted
        && headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("https"))
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn from(peer: &str) -> Option<ClientAddr> {
        Some(ClientAddr(format!("{peer}:5000").parse().unwrap()))
    }

    #[test]
    fn forwarded_headers_count_only_from_a_trusted_proxy() {
        let mut config = Config::for_tests("sqlite://x.db".into());
        let mut headers = HeaderMap::new();
        headers.insert(
            "x-forwarded-for",
            HeaderValue::from_static("203.0.113.9, 198.51.100.4"),
        );
        headers.insert("x-forwarded-proto", HeaderValue::from_static("https"));
        assert_eq!(
            client_ip(&headers, from("127.0.0.1"), &config).to_string(),
            "127.0.0.1"
        );
        assert!(!is_https(&headers, from("127.0.0.1"), &config));
        config.trusted_proxies = vec!["127.0.0.1".parse().unwrap()];
        assert_eq!(
            client_ip(&headers, from("127.0.0.1"), &config).to_string(),
            "198.51.100.4"
        );
        assert!(is_https(&headers, from("127.0.0.1"), &config));
        assert_eq!(
            client_ip(&headers, from("10.0.0.2"), &config).to_string(),
            "10.0.0.2"
        );
    }
}
