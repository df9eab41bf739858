//! One read of a person's feed for all of their streams.
//!
//! A write wakes every stream of its person, and each used to read the feed from its own
//! cursor: with 60 streams open (a person's tabs and devices, or many people's), one write
//! made 60 identical reads. Streams that stand at the same cursor now share one: the first
//! to ask reads (the others wait for it), and the page it read is kept for the next.
//!
//! A kept page is good only for a stream whose wake-up it covers: each read notes the
//! person's wake-up count when it began, and a stream woken at count `n` takes a kept
//! page only if that read began at `n` or later. The count is bumped after a commit, so
//! a read begun after it sees that commit: no stream is given a page older than the
//! write that woke it.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use app::api::ChangeEvent;
use tokio::sync::{Mutex, watch};

use crate::error::ApiError;

/// Events after a cursor, the seq to read after next, and whether more follow.
pub type EventsPage = (Vec<ChangeEvent>, i64, bool);

/// The last page read of one person's feed, shared by their streams.
#[derive(Default)]
pub struct SharedReads {
    last: Mutex<Option<LastRead>>,
    /// Reads of the database made (for the tests).
    reads: AtomicU64,
}

struct LastRead {
    since: i64,
    /// The person's wake-up count when the read began.
    woken_at: u64,
    page: Arc<EventsPage>,
}

impl SharedReads {
    /// The events after `since` as of the wake-up `woken` last showed, or later: the
    /// page another stream read, or one read now with `read`. Marks that wake-up seen.
    pub async fn events_after<F, Fut>(
        &self,
        since: i64,
        woken: &mut watch::Receiver<u64>,
        read: F,
    ) -> Result<Arc<EventsPage>, ApiError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<EventsPage, ApiError>>,
    {
        let wanted = *woken.borrow_and_update();
        let mut last = self.last.lock().await;
        if let Some(kept) = last.as_ref()
            && kept.since == since
            && kept.woken_at >= wanted
        {
            return Ok(Arc::clone(&kept.page));
        }
        // Whatever woke the person's streams up to now is on disk: a read begun now
        // covers it.
        let woken_at = *woken.borrow();
        self.reads.fetch_add(1, Ordering::Relaxed);
        let page = Arc::new(read().await?);
        *last = Some(LastRead {
            since,
            woken_at,
            page: Arc::clone(&page),
        });
        Ok(page)
    }

    /// How many reads of the database were made.
    #[cfg(test)]
    pub fn reads(&self) -> u64 {
        self.reads.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(seq: i64) -> ChangeEvent {
        ChangeEvent {
            seq,
            note_id: "n".into(),
            kind: app::api::ChangeKind::Upsert,
            version: Some(seq),
        }
    }

    /// A read of a feed whose head is `head`: one event after `since` if there is one.
    async fn feed(head: i64, since: i64) -> Result<EventsPage, ApiError> {
        let events = if head > since {
            vec![event(head)]
        } else {
            vec![]
        };
        Ok((events, head.max(since), false))
    }

    #[tokio::test]
    async fn streams_woken_by_one_write_share_one_read() {
        let reads = SharedReads::default();
        let (wake, _) = watch::channel(0u64);
        let mut streams: Vec<_> = (0..60).map(|_| wake.subscribe()).collect();
        wake.send_modify(|n| *n += 1);
        for woken in &mut streams {
            let page = reads.events_after(0, woken, || feed(1, 0)).await.unwrap();
            assert_eq!(page.1, 1, "every stream gets the write");
        }
        assert_eq!(reads.reads(), 1);
    }

    #[tokio::test]
    async fn a_page_read_before_a_stream_was_woken_is_not_given_to_it() {
        let reads = SharedReads::default();
        let (wake, _) = watch::channel(0u64);
        let mut first = wake.subscribe();
        let mut second = wake.subscribe();
        wake.send_modify(|n| *n += 1);
        reads
            .events_after(0, &mut first, || feed(1, 0))
            .await
            .unwrap();
        // A second write commits and wakes the streams; the kept page predates it.
        wake.send_modify(|n| *n += 1);
        let page = reads
            .events_after(0, &mut second, || feed(2, 0))
            .await
            .unwrap();
        assert_eq!(page.1, 2, "the second stream reads the second write");
        assert_eq!(reads.reads(), 2);
    }

    #[tokio::test]
    async fn streams_at_other_cursors_read_for_themselves_and_a_failed_read_is_not_kept() {
        let reads = SharedReads::default();
        let (wake, _) = watch::channel(0u64);
        let mut woken = wake.subscribe();
        reads
            .events_after(0, &mut woken, || feed(3, 0))
            .await
            .unwrap();
        let page = reads
            .events_after(2, &mut woken, || feed(3, 2))
            .await
            .unwrap();
        assert_eq!(page.0.len(), 1);
        let failed = reads
            .events_after(1, &mut woken, || async {
                Err(ApiError::DatabaseUnavailable)
            })
            .await;
        assert!(failed.is_err());
        reads
            .events_after(1, &mut woken, || feed(3, 1))
            .await
            .unwrap();
        assert_eq!(reads.reads(), 4, "nothing was shared");
    }
}
