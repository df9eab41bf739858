//! When background work (the offline copy's sync) may run: when the browser is idle and
//! no request of the person's own (a search) is waiting for its answer in this tab. It
//! runs a slice at a time between what the person does — typing, a press of Save, a
//! search — instead of as one long task that holds them up, and starts no slice while a
//! search waits (a read already sent goes on; another tab's sync is not held).

use std::cell::{Cell, RefCell};

use futures::channel::oneshot;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

/// The longest the wait lasts on a page that is never idle (background work still goes
/// on, a slice at a time).
const AT_MOST_MS: u32 = 1_000;
/// The longest background work waits behind a request of the person's (a search whose
/// answer never comes must not stop the offline copy for good).
const AT_MOST_BEHIND_MS: u32 = 10_000;

thread_local! {
    /// Requests of the person's own waiting for their answers.
    static ASKING: Cell<u32> = const { Cell::new(0) };
    /// Background work waiting for those answers.
    static WAITING: RefCell<Vec<oneshot::Sender<()>>> = const { RefCell::new(Vec::new()) };
}

/// A request the person is waiting for (a search), from [`person_waiting`]: background
/// work waits until it is dropped.
#[must_use = "background work waits only while this is held"]
pub struct PersonWaiting(());

/// Holds background work back until the returned value is dropped.
pub fn person_waiting() -> PersonWaiting {
    ASKING.set(ASKING.get() + 1);
    PersonWaiting(())
}

impl Drop for PersonWaiting {
    fn drop(&mut self) {
        let left = ASKING.get().saturating_sub(1);
        ASKING.set(left);
        if left == 0 {
            for waiting in WAITING.take() {
                let _ = waiting.send(());
            }
        }
    }
}

/// Resolves when background work may take its next slice: the browser idle and no
/// request of the person's waiting (after one is answered, the browser idle again, so
/// its results are on screen first) — or, behind a request that hangs, after
/// [`AT_MOST_BEHIND_MS`].
pub async fn until_free() {
    until_idle().await;
    behind_the_person().await;
}

/// Resolves at once when no request of the person's waits; otherwise once none does and
/// the browser is idle again, or after [`AT_MOST_BEHIND_MS`].
pub async fn behind_the_person() {
    if ASKING.get() == 0 {
        return;
    }
    let (free, freed) = oneshot::channel();
    WAITING.with_borrow_mut(|waiting| waiting.push(free));
    let _ = futures::future::select(
        freed,
        gloo_timers::future::TimeoutFuture::new(AT_MOST_BEHIND_MS),
    )
    .await;
    until_idle().await;
}

/// Resolves when the browser is next idle (`requestIdleCallback`), or after
/// [`AT_MOST_MS`]; where that is not offered, after the next turn of the event loop.
async fn until_idle() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let (idle, idled) = oneshot::channel::<()>();
    let callback = Closure::once(move || {
        let _ = idle.send(());
    });
    let options = web_sys::IdleRequestOptions::new();
    options.set_timeout(AT_MOST_MS);
    let asked = window
        .request_idle_callback_with_options(callback.as_ref().unchecked_ref(), &options)
        .is_ok();
    if asked {
        let _ = idled.await;
    } else {
        gloo_timers::future::TimeoutFuture::new(0).await;
    }
    // The callback lives until it has run (or the wait was given up).
    drop(callback);
}
