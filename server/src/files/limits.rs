//! How many uploads run at once — per person, and in this process — taken before any
//! byte of a body is read and given back when the upload ends, on every path.
//!
//! What do 60 requests at once do? Each upload holds a connection, a spool file growing
//! to 25 MiB, and (at the end) the database's write lock while its chunks go in. One
//! person's script sending 60 files gets [`UploadLimits::per_person`] running and 429
//! `too-many-uploads` for the rest (with `Retry-After`), so it cannot take every place;
//! everyone's together get [`UploadLimits::max`] and 503 `uploads-full` past it, so the
//! spool's disk needs room for at most that many files. Memory stays flat either way: a
//! body is streamed to disk a frame at a time.
//!
//! Exports share the mechanism ([`UploadLimits::for_exports`]): each spools the person's
//! whole file set before answering, so they are capped the same way, with their own
//! refusals (429 `too-many-exports`, 503 `exports-full`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::error::ApiError;

/// The uploads running in this process.
#[derive(Debug)]
pub struct UploadLimits {
    per_person: usize,
    max: usize,
    running: Mutex<Running>,
    /// The refusal of a person at their share.
    person_busy: fn() -> ApiError,
    /// The refusal of a process at its cap.
    process_full: fn() -> ApiError,
}

#[derive(Debug, Default)]
struct Running {
    total: usize,
    by_person: HashMap<String, usize>,
}

impl UploadLimits {
    pub fn new(per_person: usize, max: usize) -> Arc<Self> {
        Self::refusing(
            per_person,
            max,
            || ApiError::TooManyUploads,
            || ApiError::UploadsFull,
        )
    }

    /// The places of imports: like uploads', refused as imports.
    pub fn for_imports(per_person: usize, max: usize) -> Arc<Self> {
        Self::refusing(
            per_person,
            max,
            || ApiError::ImportRunning,
            || ApiError::TooManyImports,
        )
    }

    /// The places of exports: like uploads', refused as exports.
    pub fn for_exports(per_person: usize, max: usize) -> Arc<Self> {
        Self::refusing(
            per_person,
            max,
            || ApiError::TooManyExports,
            || ApiError::ExportsFull,
        )
    }

    fn refusing(
        per_person: usize,
        max: usize,
        person_busy: fn() -> ApiError,
        process_full: fn() -> ApiError,
    ) -> Arc<Self> {
        Arc::new(Self {
            per_person: per_person.max(1),
            max: max.max(1),
            running: Mutex::default(),
            person_busy,
            process_full,
        })
    }

    /// A place for one upload of `scope`'s, held until the slot is dropped; 429 when the
    /// person has all theirs, 503 when the process has all its own.
    pub fn begin(self: &Arc<Self>, scope: &str) -> Result<UploadSlot, ApiError> {
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        let mine = running.by_person.get(scope).copied().unwrap_or(0);
        if mine >= self.per_person {
            return Err((self.person_busy)());
        }
        if running.total >= self.max {
            return Err((self.process_full)());
        }
        running.total += 1;
        running.by_person.insert(scope.to_owned(), mine + 1);
        Ok(UploadSlot {
            limits: Arc::clone(self),
            scope: scope.to_owned(),
        })
    }

    /// Uploads running now (for tests and the log).
    pub fn running(&self) -> usize {
        self.running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .total
    }
}

/// One running upload's place; dropping it gives the place back.
#[derive(Debug)]
pub struct UploadSlot {
    limits: Arc<UploadLimits>,
    scope: String,
}

impl Drop for UploadSlot {
    fn drop(&mut self) {
        let mut running = self
            .limits
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        running.total = running.total.saturating_sub(1);
        if let Some(mine) = running.by_person.get_mut(&self.scope) {
            *mine = mine.saturating_sub(1);
            if *mine == 0 {
                running.by_person.remove(&self.scope);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_person_gets_their_share_and_the_process_its_cap_and_a_place_comes_back_when_dropped() {
        let limits = UploadLimits::new(2, 3);
        let a1 = limits.begin("a").unwrap();
        let _a2 = limits.begin("a").unwrap();
        assert!(matches!(limits.begin("a"), Err(ApiError::TooManyUploads)));
        let _b1 = limits.begin("b").unwrap();
        assert!(matches!(limits.begin("c"), Err(ApiError::UploadsFull)));
        // A person at their share hears so even when the process is full too.
        assert!(matches!(limits.begin("a"), Err(ApiError::TooManyUploads)));
        drop(a1);
        assert_eq!(limits.running(), 2);
        let _c1 = limits.begin("c").unwrap();
        assert!(matches!(limits.begin("a"), Err(ApiError::UploadsFull)));
    }

    #[test]
    fn exports_are_refused_as_exports() {
        let limits = UploadLimits::for_exports(1, 2);
        let _a = limits.begin("a").unwrap();
        assert!(matches!(limits.begin("a"), Err(ApiError::TooManyExports)));
        let _b = limits.begin("b").unwrap();
        assert!(matches!(limits.begin("c"), Err(ApiError::ExportsFull)));
    }
}
