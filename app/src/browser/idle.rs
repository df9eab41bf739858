//! Waiting for the browser to be idle, for work done in the background (the offline
//! copy's sync): it runs a slice at a time between what the person does — typing, a
//! press of Save, a search — instead of as one long task that holds them up.

use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

/// The longest the wait lasts on a page that is never idle (background work still goes
/// on, a slice at a time).
const AT_MOST_MS: u32 = 1_000;

/// Resolves when the browser is next idle (`requestIdleCallback`), or after
/// [`AT_MOST_MS`]; where that is not offered, after the next turn of the event loop.
pub async fn until_idle() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let (idle, idled) = futures::channel::oneshot::channel::<()>();
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
