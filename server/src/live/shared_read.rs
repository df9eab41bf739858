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
//!
//! A read a write's wake-up asks for begins no sooner than [`READ_GAP`] after the
//! person's last read began: a write after a quiet spell is read at once, and a person
//! writing faster than that (an import, a script, a burst of saves from several devices)
//! has the writes of each gap read — and sent — in one go, rather than one read and one
//! event write per stream per write. A stream waits one gap at most, and its first read
//! and the pages that follow a full one are not held back.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use app::api::ChangeEvent;
use tokio::sync::{Mutex, watch};
use tokio::time::Instant;

use crate::error::ApiError;

/// Events after a cursor, the seq to read after next, and whether more follow.
pub type EventsPage = (Vec<ChangeEvent>, i64, bool);

/// The least time between the starts of two reads of one person's feed.
pub const READ_GAP: Duration = Duration::from_millis(25);

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
    /// When the read began.
    began: Instant,
    page: Arc<EventsPage>,
}

impl SharedReads {
    /// The events after `since` as of the wake-up `woken` last showed, or later: the
    /// page another stream read, or one read now with `read`. Marks that wake-up seen.
    /// A read `paced` (one a write's wake-up asked for) begins no sooner than
    /// [`READ_GAP`] after the person's last read began; the first read of a stream and
    /// the pages that follow a full one are read at once.
    pub async fn events_after<F, Fut>(
        &self,
        since: i64,
        woken: &mut watch::Receiver<u64>,
        paced: bool,
        read: F,
    ) -> Result<Arc<EventsPage>, ApiError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<EventsPage, ApiError>>,
    {
        let wanted = *woken.borrow_and_update();
        let mut last = self.last.lock().await;
        if let Some(page) = Self::kept(&last, since, wanted) {
            return Ok(page);
        }
        // Too soon after the last read: wait out the gap — not holding the lock, so the
        // person's streams at other cursors wait no longer than theirs — then take what
        // another stream read meanwhile, if it covers this one.
        if let Some(until) = last.as_ref().map(|kept| kept.began + READ_GAP)
            && paced
            && until > Instant::now()
        {
            drop(last);
            tokio::time::sleep_until(until).await;
            last = self.last.lock().await;
            if let Some(page) = Self::kept(&last, since, wanted) {
                return Ok(page);
            }
        }
        // Whatever woke the person's streams up to now is on disk: a read begun now
        // covers it (and the wake-ups that came while waiting are seen).
        let woken_at = *woken.borrow_and_update();
        let began = Instant::now();
        self.reads.fetch_add(1, Ordering::Relaxed);
        let page = Arc::new(read().await?);
        *last = Some(LastRead {
            since,
            woken_at,
            began,
            page: Arc::clone(&page),
        });
        Ok(page)
    }

    /// The kept page, if it was read from `since` and began at the wake-up `wanted` or
    /// later.
    fn kept(last: &Option<LastRead>, since: i64, wanted: u64) -> Option<Arc<EventsPage>> {
        last.as_ref()
            .filter(|kept| kept.since == since && kept.woken_at >= wanted)
            .map(|kept| Arc::clone(&kept.page))
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

    #[tokio::test(start_paused = true)]
    async fn streams_woken_by_one_write_share_one_read() {
        let reads = SharedReads::default();
        let (wake, _) = watch::channel(0u64);
        let mut streams: Vec<_> = (0..60).map(|_| wake.subscribe()).collect();
        wake.send_modify(|n| *n += 1);
        for woken in &mut streams {
            let page = reads
                .events_after(0, woken, true, || feed(1, 0))
                .await
                .unwrap();
            assert_eq!(page.1, 1, "every stream gets the write");
        }
        assert_eq!(reads.reads(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn a_page_read_before_a_stream_was_woken_is_not_given_to_it() {
        let reads = SharedReads::default();
        let (wake, _) = watch::channel(0u64);
        let mut first = wake.subscribe();
        let mut second = wake.subscribe();
        wake.send_modify(|n| *n += 1);
        reads
            .events_after(0, &mut first, true, || feed(1, 0))
            .await
            .unwrap();
        // A second write commits and wakes the streams; the kept page predates it.
        wake.send_modify(|n| *n += 1);
        let page = reads
            .events_after(0, &mut second, true, || feed(2, 0))
            .await
            .unwrap();
        assert_eq!(page.1, 2, "the second stream reads the second write");
        assert_eq!(reads.reads(), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn a_write_after_a_quiet_spell_is_read_at_once() {
        let reads = SharedReads::default();
        let (wake, _) = watch::channel(0u64);
        let mut woken = wake.subscribe();
        wake.send_modify(|n| *n += 1);
        reads
            .events_after(0, &mut woken, true, || feed(1, 0))
            .await
            .unwrap();
        tokio::time::sleep(READ_GAP * 2).await;
        wake.send_modify(|n| *n += 1);
        let asked = Instant::now();
        let read_at = std::sync::Mutex::new(None);
        reads
            .events_after(1, &mut woken, true, || {
                *read_at.lock().unwrap() = Some(Instant::now());
                feed(2, 1)
            })
            .await
            .unwrap();
        assert_eq!(read_at.into_inner().unwrap(), Some(asked), "no wait");
    }

    #[tokio::test(start_paused = true)]
    async fn a_person_writing_fast_is_read_once_per_gap_and_each_read_covers_the_gap() {
        let reads = SharedReads::default();
        let (wake, _) = watch::channel(0u64);
        let mut first = wake.subscribe();
        let mut second = wake.subscribe();
        wake.send_modify(|n| *n += 1);
        let began = Instant::now();
        reads
            .events_after(0, &mut first, true, || feed(1, 0))
            .await
            .unwrap();
        // A second write at once: its read waits out the gap; a third write lands while
        // it waits, and the read made after the gap covers it.
        wake.send_modify(|n| *n += 1);
        let waiting = reads.events_after(1, &mut first, true, || async move {
            assert!(
                Instant::now() >= began + READ_GAP,
                "read before the gap was over"
            );
            feed(3, 1).await
        });
        let third_write = async {
            tokio::time::sleep(READ_GAP / 2).await;
            wake.send_modify(|n| *n += 1);
        };
        let (page, ()) = tokio::join!(waiting, third_write);
        assert_eq!(
            page.unwrap().1,
            3,
            "the read after the gap has the third write"
        );
        // The other stream, woken by the third write, takes that page (a read of its own
        // now would see a fourth write).
        let page = reads
            .events_after(1, &mut second, true, || feed(4, 1))
            .await
            .unwrap();
        assert_eq!(page.1, 3, "the kept page, not a read of its own");
        assert_eq!(reads.reads(), 2, "two reads for three writes");
    }

    #[tokio::test(start_paused = true)]
    async fn streams_at_other_cursors_wait_one_gap_at_most_each_not_one_after_another() {
        let reads = Arc::new(SharedReads::default());
        let (wake, _) = watch::channel(0u64);
        wake.send_modify(|n| *n += 1);
        let began = Instant::now();
        let mut first = wake.subscribe();
        reads
            .events_after(0, &mut first, true, || feed(1, 0))
            .await
            .unwrap();
        wake.send_modify(|n| *n += 1);
        // Eight streams, each at a cursor of its own, woken by the same write.
        let waiting: Vec<_> =
            (1..=8)
                .map(|cursor| {
                    let reads = Arc::clone(&reads);
                    let mut woken = wake.subscribe();
                    tokio::spawn(async move {
                        reads
                            .events_after(cursor, &mut woken, true, || async move {
                                feed(9, cursor).await
                            })
                            .await
                            .unwrap();
                        Instant::now()
                    })
                })
                .collect();
        for stream in waiting {
            let done_at = stream.await.unwrap();
            assert!(done_at <= began + READ_GAP, "a stream waited past one gap");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_streams_first_read_and_the_pages_after_a_full_one_are_not_held_back() {
        let reads = SharedReads::default();
        let (wake, _) = watch::channel(0u64);
        let mut woken = wake.subscribe();
        let asked = Instant::now();
        for since in [0, 100, 200] {
            reads
                .events_after(since, &mut woken, false, || async move {
                    assert_eq!(Instant::now(), asked, "a page was held back");
                    feed(300, since).await
                })
                .await
                .unwrap();
        }
        assert_eq!(reads.reads(), 3);
    }

    #[tokio::test(start_paused = true)]
    async fn streams_at_other_cursors_read_for_themselves_and_a_failed_read_is_not_kept() {
        let reads = SharedReads::default();
        let (wake, _) = watch::channel(0u64);
        let mut woken = wake.subscribe();
        reads
            .events_after(0, &mut woken, true, || feed(3, 0))
            .await
            .unwrap();
        let page = reads
            .events_after(2, &mut woken, true, || feed(3, 2))
            .await
            .unwrap();
        assert_eq!(page.0.len(), 1);
        let failed = reads
            .events_after(1, &mut woken, true, || async {
                Err(ApiError::DatabaseUnavailable)
            })
            .await;
        assert!(failed.is_err());
        reads
            .events_after(1, &mut woken, true, || feed(3, 1))
            .await
            .unwrap();
        assert_eq!(reads.reads(), 4, "nothing was shared");
    }
}
