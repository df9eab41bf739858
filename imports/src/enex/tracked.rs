//! The .enex file as the XML reader sees it: where it is (for messages a person can act
//! on) and how much one event has taken (an XML reader holds a whole text or CDATA in
//! memory, so one must not be allowed to grow past the limit).

use std::io::{self, BufRead, Read};

/// A buffered source that counts lines and refuses to hand out more than `cap` bytes
/// between two calls of [`Tracked::start_event`].
pub(super) struct Tracked<R> {
    inner: R,
    offset: u64,
    line: u64,
    event_bytes: u64,
    cap: u64,
    over: bool,
}

impl<R: BufRead> Tracked<R> {
    pub fn new(inner: R, cap: u64) -> Self {
        Self {
            inner,
            offset: 0,
            line: 1,
            event_bytes: 0,
            cap,
            over: false,
        }
    }

    /// One more XML event begins: its bytes are counted from zero.
    pub fn start_event(&mut self) {
        self.event_bytes = 0;
    }

    /// Whether a read failed because one event passed the cap.
    pub fn was_over(&self) -> bool {
        self.over
    }

    /// The line the reading has reached (1-based), for messages.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// How many bytes have been read, for messages.
    pub fn offset(&self) -> u64 {
        self.offset
    }
}

impl<R: BufRead> Read for Tracked<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Tracked<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.event_bytes > self.cap {
            self.over = true;
            return Err(io::Error::other(
                "one part of the file is larger than the limit",
            ));
        }
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        // The bytes are still in the buffer: filling it again reads nothing new.
        if let Ok(buffer) = self.inner.fill_buf() {
            let seen = &buffer[..n.min(buffer.len())];
            self.line += seen.iter().filter(|&&b| b == b'\n').count() as u64;
        }
        self.offset += n as u64;
        self.event_bytes += n as u64;
        self.inner.consume(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_counted_and_an_event_past_the_cap_fails_the_read() {
        let mut tracked = Tracked::new(io::Cursor::new(b"a\nb\nccccccccc".to_vec()), 4);
        let mut first = [0u8; 4];
        tracked.read_exact(&mut first).unwrap();
        assert_eq!(tracked.line(), 3);
        assert_eq!(tracked.offset(), 4);
        let mut more = [0u8; 2];
        tracked.read_exact(&mut more[..1]).unwrap();
        assert!(tracked.read(&mut more).is_err());
        assert!(tracked.was_over());
        tracked.start_event();
        assert_eq!(tracked.read(&mut more).unwrap(), 2);
    }
}
