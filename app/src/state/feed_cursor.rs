//! Where the page stands in the change feed, and what an answer of `GET /api/changes`
//! means for it. Plain Rust with no browser types, so `cargo test` checks it natively; the
//! browser glue (`browser/live.rs`) does the reading and the waiting.
//!
//! The stream (`/api/events`) only wakes the page: the notes always come from the feed,
//! read from the cursor. So an event the page missed (a stream that broke, a tab asleep)
//! costs nothing, and an event told twice (a reconnect) is read once.

use std::time::Duration;

use crate::api::{CHANGES_MAX_LIMIT, CHANGES_PATH, ChangesPage, EVENTS_PATH, Problem, ProblemSlug};

/// How long the page waits after an event before it reads the feed, so a burst of
/// writes (an import, a tag renamed in many notes) is read as one page.
pub const COALESCE: Duration = Duration::from_millis(100);

/// The seq of the last change the page has applied: the feed is read, and the stream
/// opened, after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeedCursor {
    seq: i64,
}

impl FeedCursor {
    /// The page's own seq (`<body data-seq>`): read by the server before the page's data,
    /// so following from it misses nothing the page did not show.
    pub fn from_page(data_seq: &str) -> Option<Self> {
        let seq = data_seq.trim().parse::<i64>().ok()?;
        (seq >= 0).then_some(Self { seq })
    }

    pub fn seq(self) -> i64 {
        self.seq
    }

    /// Whether a change the stream told of is one the page has not read yet.
    pub fn is_behind(self, event_seq: i64) -> bool {
        event_seq > self.seq
    }

    /// Moves past a page of the feed; never back (a late answer to an older read).
    pub fn advance(&mut self, page: &ChangesPage) {
        let last = page
            .changes
            .iter()
            .map(|c| c.seq)
            .max()
            .unwrap_or(page.next);
        self.seq = self.seq.max(page.next.max(last));
    }

    /// The address of the next page of the feed.
    pub fn changes_url(self) -> String {
        format!(
            "{CHANGES_PATH}?since={}&limit={CHANGES_MAX_LIMIT}",
            self.seq
        )
    }

    /// The address of the stream, resuming after the cursor.
    pub fn events_url(self) -> String {
        format!("{EVENTS_PATH}?since={}", self.seq)
    }
}

/// What an answer of `GET /api/changes` means for the page.
#[derive(Clone, Debug, PartialEq)]
pub enum FeedAnswer {
    /// A page of changes to apply.
    Page(ChangesPage),
    /// 401: the session ended (signed out here or on another device, the password
    /// changed): the page stops following until its person is signed in again.
    SignedOut,
    /// 409 `signed-in-as-someone-else`: the browser's cookie is someone else's now; the
    /// page never reads their feed.
    SomeoneElseSignedIn,
    /// 410 `changes-expired`: the feed no longer covers the cursor; the page's data must be
    /// read again whole.
    Expired,
    /// Anything else (no answer, a 5xx, a proxy's page): read again later.
    TryLater,
}

impl FeedAnswer {
    /// Reads an answer (its status and body).
    pub fn read(status: u16, body: &[u8]) -> Self {
        let problem = || serde_json::from_slice::<Problem>(body).ok();
        match status {
            200 => match serde_json::from_slice::<ChangesPage>(body) {
                Ok(page) => FeedAnswer::Page(page),
                Err(_) => FeedAnswer::TryLater,
            },
            401 => FeedAnswer::SignedOut,
            409 if problem().is_some_and(|p| p.is(ProblemSlug::SignedInAsSomeoneElse)) => {
                FeedAnswer::SomeoneElseSignedIn
            }
            410 if problem().is_some_and(|p| p.is(ProblemSlug::ChangesExpired)) => {
                FeedAnswer::Expired
            }
            _ => FeedAnswer::TryLater,
        }
    }
}

/// How long to wait before reading the feed and opening the stream again after the
/// `failures`-th failure in a row: 1 s, 2 s, 4 s … up to 30 s, times `jitter` in
/// [0.5, 1] so a server that comes back is not met by every tab at once. While the
/// stream cannot be opened (too many streams), this is how often the page reads the feed.
pub fn reconnect_delay(failures: u32, jitter: f64) -> Duration {
    let base = Duration::from_secs(1).saturating_mul(1 << failures.min(5));
    base.min(Duration::from_secs(30))
        .mul_f64(jitter.clamp(0.5, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{Change, ChangeKind};

    fn page(seqs: &[i64], next: i64, more: bool) -> ChangesPage {
        ChangesPage {
            changes: seqs
                .iter()
                .map(|&seq| Change {
                    seq,
                    note_id: format!("n{seq}"),
                    kind: ChangeKind::Purge,
                    note: None,
                })
                .collect(),
            next,
            more,
        }
    }

    #[test]
    fn the_cursor_starts_from_the_pages_own_seq_and_refuses_anything_else() {
        assert_eq!(FeedCursor::from_page("42").map(FeedCursor::seq), Some(42));
        assert_eq!(FeedCursor::from_page("0").map(FeedCursor::seq), Some(0));
        assert_eq!(FeedCursor::from_page(""), None);
        assert_eq!(FeedCursor::from_page("-1"), None);
        assert_eq!(FeedCursor::from_page("soon"), None);
    }

    #[test]
    fn an_event_at_or_before_the_cursor_needs_no_read() {
        let cursor = FeedCursor::from_page("10").unwrap();
        assert!(!cursor.is_behind(9));
        assert!(!cursor.is_behind(10), "told again after a reconnect");
        assert!(cursor.is_behind(11));
    }

    #[test]
    fn the_cursor_moves_to_the_pages_next_and_never_back() {
        let mut cursor = FeedCursor::from_page("10").unwrap();
        cursor.advance(&page(&[12, 15], 15, true));
        assert_eq!(cursor.seq(), 15);
        cursor.advance(&page(&[], 15, false));
        assert_eq!(cursor.seq(), 15, "an empty page keeps it");
        cursor.advance(&page(&[11], 11, false));
        assert_eq!(cursor.seq(), 15, "a late answer to an older read");
    }

    #[test]
    fn the_feed_and_the_stream_are_read_after_the_cursor() {
        let mut cursor = FeedCursor::from_page("3").unwrap();
        assert_eq!(cursor.changes_url(), "/api/changes?since=3&limit=200");
        cursor.advance(&page(&[8], 8, false));
        assert_eq!(cursor.events_url(), "/api/events?since=8");
    }

    #[test]
    fn each_answer_of_the_feed_is_read_as_what_the_page_must_do() {
        let body = br#"{"changes":[{"seq":4,"note_id":"n4","kind":"purge","note":null}],"next":4,"more":false}"#;
        assert_eq!(
            FeedAnswer::read(200, body),
            FeedAnswer::Page(page(&[4], 4, false))
        );
        let problem = |slug: &str, status: u16| {
            format!(r#"{{"type":"/problems/{slug}","title":"t","status":{status},"detail":"d"}}"#)
        };
        assert_eq!(
            FeedAnswer::read(401, problem("unauthenticated", 401).as_bytes()),
            FeedAnswer::SignedOut
        );
        assert_eq!(
            FeedAnswer::read(409, problem("signed-in-as-someone-else", 409).as_bytes()),
            FeedAnswer::SomeoneElseSignedIn
        );
        assert_eq!(
            FeedAnswer::read(410, problem("changes-expired", 410).as_bytes()),
            FeedAnswer::Expired
        );
        assert_eq!(
            FeedAnswer::read(410, b"Gone"),
            FeedAnswer::TryLater,
            "a 410 not from the feed"
        );
        assert_eq!(
            FeedAnswer::read(200, b"<html>proxy</html>"),
            FeedAnswer::TryLater
        );
        assert_eq!(FeedAnswer::read(503, b""), FeedAnswer::TryLater);
        assert_eq!(FeedAnswer::read(0, b""), FeedAnswer::TryLater);
    }

    #[test]
    fn reconnects_back_off_to_thirty_seconds_with_jitter() {
        assert_eq!(reconnect_delay(0, 1.0), Duration::from_secs(1));
        assert_eq!(reconnect_delay(3, 1.0), Duration::from_secs(8));
        assert_eq!(reconnect_delay(9, 1.0), Duration::from_secs(30));
        assert_eq!(reconnect_delay(40, 1.0), Duration::from_secs(30));
        assert_eq!(reconnect_delay(3, 0.5), Duration::from_secs(4));
        assert_eq!(reconnect_delay(0, 0.0), Duration::from_millis(500));
    }
}
