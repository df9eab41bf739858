//! One live stream: it reads the person's feed from its own cursor whenever their feed may
//! have moved (a read the person's other streams at that cursor share: `shared_read`), and
//! sends each change once, in order. A read is one statement for the
//! events alone (seq, note, kind, version: no note is read), so a stream woken by every
//! write of its person costs that person's writes little. Between reads it holds only its
//! cursor and a page at most; a client that reads slowly is simply not sent more (the body
//! is pulled, not pushed), and a client that vanished stops the stream at the next write
//! that fails (a keep-alive comment every [`KEEP_ALIVE`]).
//!
//! It ends: when the session or token ends (`signed-out`, checked when the person's
//! sessions change — a sign-out, a new password, a revoked token — and every
//! [`SESSION_CHECK`], never at each write's wake-up); after its lifetime
//! (`ONCENOTE_STREAM_LIFETIME_SECS`, half an hour: the browser reconnects from its last
//! id, so a half-open connection never holds a place for long); when the feed no longer
//! covers its cursor (the reconnect is told 410); and at shutdown.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::time::Duration;

use app::api::{CHANGE_EVENT, ChangeEvent, SIGNED_OUT_EVENT};
use axum::response::sse::Event;
use futures::Stream;
use tokio::time::Instant;

use super::hub::Place;
use super::page::read_events;
use crate::error::ApiError;
use crate::records::Credential;
use crate::storage::Store;
use crate::timestamp;

/// A comment at least this often keeps proxies from closing an idle stream.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// How often a stream that was not woken checks its session anyway.
const SESSION_CHECK: Duration = Duration::from_secs(30);
/// Changes read from the feed at a time.
const PAGE: u32 = 100;
/// How long to wait before reading again after the database failed: doubling, up to
/// [`DB_RETRY_AT_MOST`], each stream a little apart.
const DB_RETRY: Duration = Duration::from_secs(1);
const DB_RETRY_AT_MOST: Duration = Duration::from_secs(30);
/// The delay a browser waits before opening the stream again after it ended.
const RECONNECT: Duration = Duration::from_secs(1);

/// Who the stream is for and where it stands.
pub struct Follow {
    pub store: Store,
    pub scope: String,
    /// What signed the stream in: a session, or a token (revoking it ends the stream).
    pub via: Credential,
    /// The last seq sent (or the one the client asked to start after).
    pub cursor: i64,
    pub place: Place,
    /// The stream ends after this long; the browser opens the next from its last id.
    pub lifetime: Duration,
}

struct Running {
    follow: Follow,
    pending: VecDeque<Event>,
    done: bool,
    ends_at: Instant,
    /// Whether the feed may hold changes past the cursor (at the start, after a wake-up,
    /// while pages follow).
    must_read: bool,
    /// Whether that read is a wake-up's (paced: `shared_read::READ_GAP`), not the first
    /// or a page that follows a full one.
    woken: bool,
    /// How long to wait before reading again after the database failed.
    db_wait: Duration,
    /// When the session is checked next, if nothing asks sooner.
    check_at: Instant,
}

/// The events of the stream.
pub fn events(follow: Follow) -> impl Stream<Item = Result<Event, Infallible>> {
    let mut pending = VecDeque::new();
    // The id sets the browser's last event id to where the stream starts, so a reconnect
    // before any change (the stream's lifetime over) resumes from here, not from "now".
    pending.push_back(
        Event::default()
            .id(follow.cursor.to_string())
            .retry(RECONNECT)
            .comment("live"),
    );
    let ends_at = Instant::now() + follow.lifetime;
    let running = Running {
        follow,
        pending,
        done: false,
        ends_at,
        must_read: true,
        woken: false,
        db_wait: DB_RETRY,
        check_at: Instant::now() + SESSION_CHECK,
    };
    futures::stream::unfold(running, |mut running| async move {
        running.next().await.map(|event| (Ok(event), running))
    })
}

impl Running {
    async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Some(event);
            }
            if self.done {
                return None;
            }
            if self.must_read {
                let Follow {
                    store,
                    scope,
                    cursor,
                    place,
                    ..
                } = &mut self.follow;
                let since = *cursor;
                // Boxed, as the session check below: a stream waits far more than it reads,
                // and a read's future held inline would take its room in every idle stream.
                let read = Box::pin(place.reads.events_after(
                    since,
                    &mut place.woken,
                    self.woken,
                    || read_events(store, scope, since, PAGE),
                ))
                .await;
                match read.as_deref() {
                    Ok((events, next, more)) => {
                        self.pending.extend(events.iter().map(change_event));
                        *cursor = *next;
                        self.must_read = *more;
                        self.woken = false;
                        self.db_wait = DB_RETRY;
                        if !self.pending.is_empty() {
                            continue;
                        }
                    }
                    // The feed no longer covers the cursor: end, so the browser's reconnect
                    // (from its last id) is told 410 and starts its copy over.
                    Err(ApiError::ChangesExpired(_)) => {
                        self.done = true;
                        continue;
                    }
                    // The database fails: read again after a while (longer each time,
                    // and not all streams at once), still ending at shutdown.
                    Err(error) => {
                        tracing::debug!(%error, "a live stream could not read the feed");
                        let wait = self.db_wait.mul_f64(1.0 + rand::random::<f64>() / 2.0);
                        self.db_wait = (self.db_wait * 2).min(DB_RETRY_AT_MOST);
                        let closing = &mut self.follow.place.closing;
                        let waited = Box::pin(async {
                            tokio::select! {
                                () = tokio::time::sleep(wait) => false,
                                _ = closing.wait_for(|closing| *closing) => true,
                            }
                        });
                        self.done = waited.await;
                        continue;
                    }
                }
            }
            let place = &mut self.follow.place;
            // Woken by a write: read the feed. A session of the person's ended, or the
            // half minute is up: check the session. An idle stream reads nothing.
            let check = tokio::select! {
                _ = place.woken.changed() => {
                    self.must_read = true;
                    self.woken = true;
                    false
                }
                _ = place.sessions.changed() => true,
                _ = place.closing.wait_for(|closing| *closing) => {
                    self.done = true;
                    continue;
                }
                () = tokio::time::sleep_until(self.check_at) => true,
                () = tokio::time::sleep_until(self.ends_at) => {
                    self.done = true;
                    continue;
                }
            };
            if !check {
                continue;
            }
            self.check_at = Instant::now() + SESSION_CHECK;
            if !Box::pin(self.session_alive()).await {
                self.pending
                    .push_back(Event::default().event(SIGNED_OUT_EVENT).data("{}"));
                self.done = true;
            }
        }
    }

    /// Whether the stream's session (or token) still signs its person in (a failing
    /// database is given the benefit of the doubt: it is asked again at the next wake-up).
    async fn session_alive(&self) -> bool {
        let f = &self.follow;
        let now = timestamp::format(timestamp::now());
        let viewer = match &f.via {
            Credential::Session(digest) => f
                .store
                .sessions()
                .session_viewer(digest, &now)
                .await
                .map(|found| found.map(|(viewer, _)| viewer)),
            Credential::Token { digest, .. } => f
                .store
                .api_tokens()
                .token_viewer(digest)
                .await
                .map(|found| found.map(|(viewer, _)| viewer)),
        };
        match viewer {
            Ok(Some(viewer)) => viewer.user_id == f.scope,
            Ok(None) => false,
            Err(_) => true,
        }
    }
}

/// A change as the stream sends it.
fn change_event(event: &ChangeEvent) -> Event {
    Event::default()
        .id(event.seq.to_string())
        .event(CHANGE_EVENT)
        .data(serde_json::to_string(event).unwrap_or_default())
}
