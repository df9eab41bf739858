//! Follows the person's other devices (and tabs) live (PROTOCOL.md, "Changes and live
//! updates"). A signed-in page opens the stream (`/api/events`) from the seq its data was
//! read at (`<body data-seq>`); a `change` event only wakes it (bursts are read as one,
//! after `COALESCE`), and the notes always come from the feed (`/api/changes`), read from
//! the page's cursor until nothing more follows — so a missed event costs nothing and one
//! told twice is read once. Each page of changes goes into the page's state
//! (`Feed::apply`), then to whatever registered with [`on_applied`].
//!
//! The stream is this module's own to reopen: on an error it is closed and, after a
//! backoff, the feed is read (which says whether the session ended, someone else signed
//! in, or the cursor expired) and the stream opened again after the new cursor. While it
//! cannot be opened (the server holds too many streams) those reads are the page's slow
//! poll. Offline nothing is tried until `online`; a tab hidden for a while closes its
//! stream and catches up when it is shown again. Every read names the page's person
//! (`X-Oncenote-User`), so a cookie that became someone else's never shows their notes.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures::future::{Either, select};
use gloo_net::http::Request;
use gloo_storage::{SessionStorage, Storage};
use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

use super::namespace;
use crate::api::{
    CHANGE_EVENT, Change, ChangeEvent, ChangesPage, OWNER_HEADER, SIGNED_OUT_EVENT, TAGS_PATH,
    TagList,
};
use crate::state::PageState;
use crate::state::editor::Editor;
use crate::state::feed_cursor::{COALESCE, FeedAnswer, FeedCursor, reconnect_delay};
use crate::state::notices::Notice;

/// How long one read (headers and body) may take before it is given up and tried later.
const READ_TIMEOUT_MS: u32 = 15_000;
/// A page reloaded because its cursor expired is not reloaded again for that long: if the
/// fresh page is expired too, the person is told instead of the page reloading in a loop.
const RELOAD_GUARD_MS: f64 = 60_000.0;
/// How long a hidden tab keeps its stream: switching tabs back and forth does not reopen
/// it each time.
const HIDDEN_GRACE: Duration = Duration::from_secs(10);

type Listener = Closure<dyn FnMut(web_sys::Event)>;
/// Something told of each page of changes the page applied.
type Follower = Rc<dyn Fn(&[Change])>;

/// Why the page stopped following, until something changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Halt {
    /// The session ended: tried again when the tab is shown or the network returns.
    SignedOut,
    /// The browser's cookie is someone else's: likewise.
    SomeoneElseSignedIn,
    /// The feed no longer covers the page's data: only a reload helps.
    Expired,
}

/// The stream and its listeners, kept together: dropping the listeners of a stream that
/// is still open would break it.
struct Stream {
    source: web_sys::EventSource,
    _listeners: Vec<Listener>,
}

impl Drop for Stream {
    fn drop(&mut self) {
        self.source.close();
    }
}

struct Following {
    page: PageState,
    cursor: FeedCursor,
    stream: Option<Stream>,
    /// Streams closed, possibly from inside one of their own listeners: dropped when the
    /// next one opens, never while a listener of theirs runs.
    retired: Vec<Stream>,
    /// A read of the feed is scheduled or running.
    reading: bool,
    /// Something happened during the read: read once more when it ends.
    again: bool,
    /// A reconnect is scheduled.
    reconnecting: bool,
    /// Failures in a row (streams that broke before opening, reads that failed).
    failures: u32,
    halted: Option<Halt>,
}

thread_local! {
    static FOLLOWING: RefCell<Option<Following>> = const { RefCell::new(None) };
    static ON_APPLIED: RefCell<Vec<Follower>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` on the page's following state (none on a page for nobody). The borrow ends
/// with `f`: nothing that could come back here runs inside it.
fn with<R>(f: impl FnOnce(&mut Following) -> R) -> Option<R> {
    FOLLOWING.with(|following| following.borrow_mut().as_mut().map(f))
}

/// Calls `f` with every page of changes once the page has applied it (the offline copy
/// keeps itself current this way).
pub fn on_applied(f: impl Fn(&[Change]) + 'static) {
    ON_APPLIED.with(|all| all.borrow_mut().push(Rc::new(f)));
}

/// Starts following, on a signed-in page that says which seq its data was read at.
pub fn start(page: PageState) {
    let Some(cursor) = page_seq() else {
        leptos::logging::warn!(
            "this page does not say where the change feed stands; it will not follow other devices"
        );
        return;
    };
    FOLLOWING.with(|following| {
        *following.borrow_mut() = Some(Following {
            page,
            cursor,
            stream: None,
            retired: Vec::new(),
            reading: false,
            again: false,
            reconnecting: false,
            failures: 0,
            halted: None,
        })
    });
    let Some(window) = web_sys::window() else {
        return;
    };
    listen(window.as_ref(), "online", |_| resume());
    listen(window.as_ref(), "offline", |_| {
        with(close_stream);
    });
    // Back from the back/forward cache: the stream was closed meanwhile.
    listen(window.as_ref(), "pageshow", |_| resume());
    if let Some(document) = window.document() {
        listen(document.as_ref(), "visibilitychange", move |_| {
            if is_visible() {
                resume();
            } else {
                // A tab left hidden gives its stream back (a browser opens only six
                // connections to a server over HTTP/1.1, and the server counts streams per
                // person); shown again, it reads what it missed at once.
                set_timeout(
                    || {
                        if !is_visible() {
                            with(close_stream);
                        }
                    },
                    HIDDEN_GRACE,
                );
            }
        });
    }
    open_stream();
}

/// `<body data-seq>`: the person's feed seq, read by the server before the page's data.
fn page_seq() -> Option<FeedCursor> {
    let seq = web_sys::window()?
        .document()?
        .body()?
        .get_attribute("data-seq")?;
    FeedCursor::from_page(&seq)
}

/// Back online, the tab shown again: read what was missed and (re)open the stream — also
/// after the session ended or someone else signed in, in case the page's person is signed
/// in again.
fn resume() {
    let go = with(|f| {
        if f.halted == Some(Halt::Expired) {
            return false;
        }
        f.halted = None;
        f.failures = 0;
        // A stream that survived (the tab was only hidden) keeps going.
        f.stream.is_none()
    });
    if go == Some(true) {
        read_feed(Duration::ZERO);
    }
}

fn open_stream() {
    let url = with(|f| {
        f.retired.clear();
        let can =
            f.halted.is_none() && f.stream.is_none() && !f.reading && is_online() && is_visible();
        can.then(|| f.cursor.events_url())
    });
    let Some(Some(url)) = url else {
        return;
    };
    let Ok(source) = web_sys::EventSource::new(&url) else {
        schedule_reconnect();
        return;
    };
    let listeners = vec![
        listen_to(&source, CHANGE_EVENT, on_change),
        listen_to(&source, SIGNED_OUT_EVENT, |_| halt(Halt::SignedOut)),
        listen_to(&source, "open", |_| {
            with(|f| f.failures = 0);
        }),
        // The browser would reconnect by itself, from the address it was opened with:
        // this module reconnects instead, from the cursor, after reading what it missed.
        listen_to(&source, "error", |_| {
            with(close_stream);
            schedule_reconnect();
        }),
    ];
    with(|f| {
        f.stream = Some(Stream {
            source,
            _listeners: listeners,
        })
    });
}

fn close_stream(f: &mut Following) {
    if let Some(stream) = f.stream.take() {
        stream.source.close();
        f.retired.push(stream);
    }
}

/// A `change` event: read the feed unless the page has that change already.
fn on_change(event: web_sys::Event) {
    let told = event
        .dyn_ref::<web_sys::MessageEvent>()
        .and_then(|m| m.data().as_string())
        .and_then(|data| serde_json::from_slice::<ChangeEvent>(data.as_bytes()).ok());
    let behind = match told {
        Some(change) => with(|f| f.cursor.is_behind(change.seq)).unwrap_or(false),
        // An event this version cannot read: the feed says what it was.
        None => true,
    };
    if behind {
        read_feed(COALESCE);
    }
}

/// Reads the feed after `delay`, unless a read is on its way (then it reads once more).
fn read_feed(delay: Duration) {
    let start = with(|f| {
        if f.reading {
            f.again = true;
            false
        } else {
            f.reading = true;
            f.again = false;
            true
        }
    });
    if start == Some(true) {
        set_timeout(|| leptos::task::spawn_local(read_until_current()), delay);
    }
}

/// Reads and applies pages of the feed until none follows, then says what came of it.
async fn read_until_current() {
    let mut applied = false;
    let ended = loop {
        let Some((page, cursor)) = with(|f| {
            f.again = false;
            (f.page, f.cursor)
        }) else {
            return;
        };
        match read(&cursor.changes_url())
            .await
            .map(|(status, body)| FeedAnswer::read(status, &body))
        {
            Some(FeedAnswer::Page(changes)) => {
                applied |= !changes.changes.is_empty();
                apply(page, &changes);
                let again = with(|f| f.again).unwrap_or(false);
                if !changes.more && !again {
                    break None;
                }
            }
            Some(other) => break Some(other),
            None => break Some(FeedAnswer::TryLater),
        }
    };
    let Some(page) = with(|f| {
        f.reading = false;
        f.page
    }) else {
        return;
    };
    match ended {
        None => {
            // Read as this page's person: they are the one signed in.
            page.connection.session_ended.set(false);
            page.connection.someone_else_signed_in.set(false);
            if applied && page.feed.wants_tag_counts.get_value() {
                read_tag_counts(page).await;
            }
            open_stream();
        }
        Some(FeedAnswer::SignedOut) => halt(Halt::SignedOut),
        Some(FeedAnswer::SomeoneElseSignedIn) => halt(Halt::SomeoneElseSignedIn),
        Some(FeedAnswer::Expired) => halt(Halt::Expired),
        Some(_) => schedule_reconnect(),
    }
}

/// Applies a page of the feed and moves the cursor past it.
fn apply(page: PageState, changes: &ChangesPage) {
    with(|f| f.cursor.advance(changes));
    if changes.changes.is_empty() {
        return;
    }
    page.feed.apply(&page.notes, &changes.changes);
    let followers = ON_APPLIED.with(|all| all.borrow().clone());
    for follower in followers {
        follower(&changes.changes);
    }
}

/// After a failure: read the feed (and open the stream) again after a backoff — once the
/// browser is online again if it is not.
fn schedule_reconnect() {
    let delay = with(|f| {
        if f.reconnecting || f.halted.is_some() || !is_online() {
            return None;
        }
        f.reconnecting = true;
        let delay = reconnect_delay(f.failures, 0.5 + 0.5 * js_sys::Math::random());
        f.failures = f.failures.saturating_add(1);
        Some(delay)
    });
    if let Some(Some(delay)) = delay {
        set_timeout(
            || {
                with(|f| f.reconnecting = false);
                read_feed(Duration::ZERO);
            },
            delay,
        );
    }
}

/// Stops following, and shows why.
fn halt(why: Halt) {
    let Some(page) = with(|f| {
        close_stream(f);
        f.halted = Some(why);
        f.page
    }) else {
        return;
    };
    match why {
        Halt::SignedOut => page.connection.session_ended.set(true),
        Halt::SomeoneElseSignedIn => page.connection.someone_else_signed_in.set(true),
        Halt::Expired => start_over(page),
    }
}

/// The feed no longer covers what the page showed: the page is read again whole — by a
/// reload, unless the person is typing (then they are asked to reload when it suits them;
/// their draft is kept across a reload either way).
fn start_over(page: PageState) {
    let typing = page.editors().iter().any(Editor::has_unpressed_text);
    let guard = namespace::key("live.reloaded-at");
    let now = js_sys::Date::now();
    let reloaded_lately =
        SessionStorage::get::<f64>(&guard).is_ok_and(|at| now - at < RELOAD_GUARD_MS);
    let location = web_sys::window().map(|w| w.location());
    if !typing
        && !reloaded_lately
        && let Some(location) = &location
        && SessionStorage::set(&guard, now).is_ok()
        && location.reload().is_ok()
    {
        return;
    }
    let here = location
        .and_then(|l| l.href().ok())
        .unwrap_or_else(|| "/".to_owned());
    page.notices.notify(Notice {
        id: "changes-expired".to_owned(),
        text: "This page missed changes made on your other devices while it was away.".to_owned(),
        link: Some((here, "Reload to see them".to_owned())),
        action: None,
    });
}

/// The tags page's counts, read again after changes.
async fn read_tag_counts(page: PageState) {
    if let Some((200, body)) = read(TAGS_PATH).await
        && let Ok(list) = serde_json::from_slice::<TagList>(&body)
    {
        page.feed.tag_counts.set(Some(list.tags));
    }
}

/// One `GET` as the page's person, whole (status and body) within the timeout; `None`
/// without an answer.
async fn read(path: &str) -> Option<(u16, Vec<u8>)> {
    let controller = web_sys::AbortController::new().ok();
    let signal = controller.as_ref().map(|c| c.signal());
    let mut request = Request::get(path).abort_signal(signal.as_ref());
    if let Some(owner) = namespace::user() {
        request = request.header(OWNER_HEADER, &owner);
    }
    let answer = std::pin::pin!(async move {
        let response = request.send().await.ok()?;
        let body = response.binary().await.ok()?;
        Some((response.status(), body))
    });
    match select(answer, TimeoutFuture::new(READ_TIMEOUT_MS)).await {
        Either::Left((answer, _)) => answer,
        Either::Right(((), _)) => {
            if let Some(controller) = controller {
                controller.abort();
            }
            None
        }
    }
}

fn is_visible() -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .is_none_or(|d| d.visibility_state() == web_sys::VisibilityState::Visible)
}

fn is_online() -> bool {
    web_sys::window()
        .map(|w| w.navigator().on_line())
        .unwrap_or(true)
}

fn listen_to(
    source: &web_sys::EventSource,
    event: &str,
    handler: impl FnMut(web_sys::Event) + 'static,
) -> Listener {
    let closure = Listener::new(handler);
    let _ = source.add_event_listener_with_callback(event, closure.as_ref().unchecked_ref());
    closure
}

fn listen(target: &web_sys::EventTarget, event: &str, handler: impl Fn(web_sys::Event) + 'static) {
    let closure = Closure::<dyn Fn(web_sys::Event)>::new(handler);
    let _ = target.add_event_listener_with_callback(event, closure.as_ref().unchecked_ref());
    // The page's listeners live as long as the page.
    closure.forget();
}
