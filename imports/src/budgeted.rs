//! A reader that stops after a budget of bytes: what lists a zip's entries. A zip's
//! central directory can be as large as the upload (a gigabyte of forged entries in 46
//! bytes each), and the zip reader keeps every entry it lists, so the listing is read
//! within a budget, and the budget lifted once it is done.

use std::cell::Cell;
use std::io::{self, Read, Seek, SeekFrom};
use std::rc::Rc;

/// `inner`, read within the budget its [`Budget`] holds.
pub struct Budgeted<R> {
    inner: R,
    budget: Budget,
}

/// The bytes a [`Budgeted`] reader may still read; shared, so the opener can lift it.
#[derive(Clone, Debug)]
pub struct Budget(Rc<Cell<u64>>);

impl Budget {
    /// Whether the reading stopped for the budget.
    pub fn spent(&self) -> bool {
        self.0.get() == 0
    }

    /// `bytes` more may be read from now on (whatever was left is forgotten).
    pub fn renew(&self, bytes: u64) {
        self.0.set(bytes);
    }

    /// No more bound (the listing is read; what is unpacked is bounded on its own).
    pub fn lift(&self) {
        self.0.set(u64::MAX);
    }
}

impl<R> Budgeted<R> {
    /// `inner`, of which at most `bytes` may be read until the budget is lifted.
    pub fn new(inner: R, bytes: u64) -> (Self, Budget) {
        let budget = Budget(Rc::new(Cell::new(bytes)));
        (
            Self {
                inner,
                budget: budget.clone(),
            },
            budget,
        )
    }
}

impl<R: Read> Read for Budgeted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.budget.0.get();
        if left == 0 {
            return Err(io::Error::other("the archive's directory is too large"));
        }
        let room = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..room])?;
        self.budget.0.set(left - n as u64);
        Ok(n)
    }
}

impl<R: Seek> Seek for Budgeted<R> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.inner.seek(to)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_stops_at_the_budget_until_it_is_lifted() {
        let (mut reader, budget) = Budgeted::new(io::Cursor::new(vec![7u8; 100]), 10);
        let mut all = Vec::new();
        assert!(reader.read_to_end(&mut all).is_err());
        assert_eq!(all.len(), 10);
        assert!(budget.spent());
        budget.lift();
        reader.read_to_end(&mut all).unwrap();
        assert_eq!(all.len(), 100);
    }
}
