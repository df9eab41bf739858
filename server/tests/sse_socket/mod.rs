//! A live stream opened on a plain socket, for the tests that count what idle streams
//! cost the server: a plain socket's reads and writes allocate nothing in the test.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// Opens `/api/events` at `address` (`host:port`) with the session `cookie` and reads
/// until the stream's first event (": live" with its id) has come with the answer's head.
pub fn open_stream(address: &str, cookie: &str) -> TcpStream {
    let mut socket = TcpStream::connect(address).expect("a connection");
    socket
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("a read timeout");
    let request = format!(
        "GET /api/events HTTP/1.1\r\nHost: {address}\r\nCookie: {cookie}\r\n\
         Accept: text/event-stream\r\n\r\n"
    );
    socket.write_all(request.as_bytes()).expect("the request");
    let mut seen = [0u8; 2048];
    let mut filled = 0;
    while !seen[..filled].windows(6).any(|w| w == b": live") {
        let n = socket
            .read(&mut seen[filled..])
            .expect("the stream's start");
        assert!(
            n > 0,
            "the server closed the stream: {:?}",
            String::from_utf8_lossy(&seen[..filled])
        );
        filled += n;
        assert!(filled < seen.len(), "no first event in {filled} bytes");
    }
    assert!(
        seen.starts_with(b"HTTP/1.1 200"),
        "{:?}",
        String::from_utf8_lossy(&seen[..filled])
    );
    socket
}
