//! A connection whose writes make no progress is closed.
//!
//! hyper times the headers of a request (and an idle keep-alive connection), and the
//! router times a request's body, but nothing timed the answer: a client that asks for
//! the wasm (or an export, or opens a live stream) and never reads keeps its connection —
//! one of the server's places — for as long as it likes. 40 such sockets held every place
//! of a 40-connection server for minutes, `/healthz` answering 503 throughout.
//!
//! [`StalledWrites`] wraps the connection's socket: once a write (or a flush) has waited
//! for the client for `limit` without the kernel taking a single byte, it fails with
//! `TimedOut`, hyper drops the connection, and the request's future and body with it (an
//! export's place and spool file go back). A slow client that takes bytes now and then
//! is not stalled: the clock restarts at each byte taken.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// `inner`, whose writes fail once they have waited `limit` with no byte taken.
pub struct StalledWrites<IO> {
    inner: IO,
    limit: Duration,
    /// Armed when a write first waits; disarmed when bytes are taken.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl<IO> StalledWrites<IO> {
    pub fn new(inner: IO, limit: Duration) -> Self {
        Self {
            inner,
            limit,
            stalled: None,
        }
    }

    /// What a write that waits does: wait on, or fail once it has waited `limit`.
    fn waiting<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        let limit = self.limit;
        let clock = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(Instant::now() + limit)));
        ready!(clock.as_mut().poll(cx));
        Poll::Ready(Err(io::Error::new(
            io::ErrorKind::TimedOut,
            "the client took no byte of the answer in time",
        )))
    }

    /// What a write that went on does: the clock stops.
    fn went_on<T>(&mut self, done: io::Result<T>) -> Poll<io::Result<T>> {
        self.stalled = None;
        Poll::Ready(done)
    }
}

impl<IO: AsyncRead + Unpin> AsyncRead for StalledWrites<IO> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for StalledWrites<IO> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_write(cx, buf) {
            Poll::Ready(done) => this.went_on(done),
            Poll::Pending => this.waiting(cx),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_write_vectored(cx, bufs) {
            Poll::Ready(done) => this.went_on(done),
            Poll::Pending => this.waiting(cx),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_flush(cx) {
            Poll::Ready(done) => this.went_on(done),
            Poll::Pending => this.waiting(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_shutdown(cx) {
            Poll::Ready(done) => this.went_on(done),
            Poll::Pending => this.waiting(cx),
        }
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncWriteExt;

    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_write_nobody_reads_fails_after_the_limit_and_one_read_now_and_then_does_not() {
        // A pipe of 16 bytes: full after the first write, drained only by the test.
        let (client, server) = tokio::io::duplex(16);
        let mut server = StalledWrites::new(server, Duration::from_secs(30));
        server.write_all(&[1; 16]).await.unwrap();
        let (mut reader, _) = tokio::io::split(client);
        // Read a byte every 20 s: never 30 s without one taken.
        let writing = tokio::spawn(async move {
            let outcome = server.write_all(&[2; 64]).await;
            (outcome, server)
        });
        let mut byte = [0u8; 1];
        for _ in 0..80 {
            tokio::time::sleep(Duration::from_secs(20)).await;
            tokio::io::AsyncReadExt::read_exact(&mut reader, &mut byte)
                .await
                .unwrap();
        }
        let (outcome, mut server) = writing.await.unwrap();
        outcome.unwrap();
        // Now nobody reads: the next write waits 30 s, then fails.
        let started = Instant::now();
        let mut wrote = server.write_all(&[3; 64]).await;
        if wrote.is_ok() {
            wrote = server.write_all(&[3; 64]).await;
        }
        let error = wrote.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_secs(30) && waited < Duration::from_secs(31),
            "{waited:?}"
        );
    }
}
