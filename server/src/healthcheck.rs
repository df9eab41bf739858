//! `server healthcheck`: asks the server running on this machine for `GET /healthz` and
//! says whether it is healthy. The container image's `HEALTHCHECK` runs it (Debian slim
//! has no curl, and a client crate would only add to the binary for one request).
//!
//! It asks the address the server listens on (`LEPTOS_SITE_ADDR`), with an address on
//! every interface (`0.0.0.0`, `[::]`) asked on loopback. Healthy is a `200` within
//! [`TIMEOUT`]; anything else — no answer, a refused connection, the `503` of a database
//! that does not answer or a disk that is full — is not, and says why.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// How long the whole exchange may take.
pub const TIMEOUT: Duration = Duration::from_secs(5);

/// At most this much of the answer is read (`/healthz` answers a few dozen bytes).
const ANSWER_LIMIT: u64 = 64 * 1024;

/// The server at `listening` answered 200 (`Ok`, with the answer's body) or did not
/// (`Err`, saying what happened).
pub async fn probe(listening: SocketAddr) -> Result<String, String> {
    let target = reachable_at(listening);
    let answer = tokio::time::timeout(TIMEOUT, exchange(target))
        .await
        .map_err(|_| format!("{target} did not answer within {} s", TIMEOUT.as_secs()))??;
    let answer = String::from_utf8_lossy(&answer);
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status_line = head.lines().next().unwrap_or_default();
    if status_line.split_whitespace().nth(1) == Some("200") {
        Ok(body.trim().to_owned())
    } else if status_line.is_empty() {
        Err(format!("{target} closed the connection without an answer"))
    } else {
        Err(format!("{target} answered {status_line}: {}", body.trim()))
    }
}

/// Where a client on this machine reaches a server listening on `listening`: loopback for
/// an address on every interface, else that address. (Also the start of the setup link the
/// server logs, so that a server on `0.0.0.0` does not hand out `http://0.0.0.0:…`.)
pub fn reachable_at(listening: SocketAddr) -> SocketAddr {
    let ip = match listening.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    SocketAddr::new(ip, listening.port())
}

async fn exchange(target: SocketAddr) -> Result<Vec<u8>, String> {
    let mut stream = TcpStream::connect(target)
        .await
        .map_err(|error| format!("cannot connect to {target}: {error}"))?;
    // An IP address is always an allowed Host (the DNS-rebinding check lets IPs through).
    let request = format!("GET /healthz HTTP/1.1\r\nHost: {target}\r\nConnection: close\r\n\r\n");
    stream
        .write_all(request.as_bytes())
        .await
        .map_err(|error| format!("cannot ask {target}: {error}"))?;
    let mut answer = Vec::new();
    stream
        .take(ANSWER_LIMIT)
        .read_to_end(&mut answer)
        .await
        .map_err(|error| format!("the answer from {target} broke off: {error}"))?;
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::net::TcpListener;

    /// A one-shot server on loopback that answers `reply` to the first request.
    async fn answering(reply: &'static str) -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut request = vec![0; 1024];
            let n = socket.read(&mut request).await.unwrap();
            let request = String::from_utf8_lossy(&request[..n]).into_owned();
            assert!(
                request.starts_with("GET /healthz HTTP/1.1\r\n"),
                "{request}"
            );
            assert!(request.contains(&format!("Host: {addr}\r\n")), "{request}");
            socket.write_all(reply.as_bytes()).await.unwrap();
        });
        addr
    }

    #[tokio::test]
    async fn a_200_is_healthy_and_gives_the_body() {
        let addr =
            answering("HTTP/1.1 200 OK\r\ncontent-length: 15\r\n\r\n{\"status\":\"ok\"}").await;
        assert_eq!(probe(addr).await.unwrap(), "{\"status\":\"ok\"}");
    }

    #[tokio::test]
    async fn a_503_is_unhealthy_and_says_why() {
        let addr =
            answering("HTTP/1.1 503 Service Unavailable\r\n\r\n{\"status\":\"storage-full\"}")
                .await;
        let why = probe(addr).await.unwrap_err();
        assert!(why.contains("503") && why.contains("storage-full"), "{why}");
    }

    #[tokio::test]
    async fn nothing_listening_is_unhealthy() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        drop(listener);
        let why = probe(addr).await.unwrap_err();
        assert!(why.contains("cannot connect"), "{why}");
    }

    #[tokio::test]
    async fn a_server_that_never_answers_is_unhealthy_after_the_timeout() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let why = probe(addr).await.unwrap_err();
        assert!(why.contains("did not answer within 5 s"), "{why}");
        drop(listener);
    }

    #[test]
    fn every_interface_is_asked_on_loopback_and_a_given_address_as_it_is() {
        let asked = |addr: &str| reachable_at(addr.parse().unwrap()).to_string();
        assert_eq!(asked("0.0.0.0:3000"), "127.0.0.1:3000");
        assert_eq!(asked("[::]:8080"), "[::1]:8080");
        assert_eq!(asked("10.1.2.3:3000"), "10.1.2.3:3000");
    }
}
