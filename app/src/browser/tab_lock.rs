//! At most one tab sends (and writes) a given intent at a time: the Web Locks API
//! (`navigator.locks`), whose locks die with their tab.
//!
//! Web Locks exist in every current browser, but only in secure contexts (HTTPS, or
//! `localhost`). On plain HTTP to a LAN address there is no lock to take; then two tabs
//! may both send an intent — with the same key, so the server still stores one note.

use std::cell::RefCell;
use std::future::Future;

use futures::channel::oneshot;
use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// Runs `work` holding the lock for intent `key`; `None` at once if another tab holds it.
pub async fn exclusively<T>(key: &str, work: impl Future<Output = T>) -> Option<T> {
    match web_locks() {
        Some(locks) => with_web_lock(&locks, key, work).await,
        None => Some(work.await),
    }
}

fn web_locks() -> Option<JsValue> {
    let navigator = web_sys::window()?.navigator();
    let locks = Reflect::get(&navigator, &JsValue::from_str("locks")).ok()?;
    (!locks.is_undefined() && !locks.is_null()).then_some(locks)
}

/// `navigator.locks.request(name, {ifAvailable: true}, callback)`: the callback gets the
/// lock (or null when it is taken) and holds it until the promise it returns settles.
async fn with_web_lock<T>(locks: &JsValue, key: &str, work: impl Future<Output = T>) -> Option<T> {
    let request: Function = Reflect::get(locks, &JsValue::from_str("request"))
        .ok()?
        .dyn_into()
        .ok()?;
    let options = Object::new();
    Reflect::set(&options, &JsValue::from_str("ifAvailable"), &JsValue::TRUE).ok()?;

    let mut release: Option<Function> = None;
    let held = Promise::new(&mut |resolve, _reject| release = Some(resolve));
    let (granted_tx, granted_rx) = oneshot::channel::<bool>();
    let granted_tx = RefCell::new(Some(granted_tx));
    let callback = Closure::once(move |lock: JsValue| -> JsValue {
        let granted = !lock.is_null();
        if let Some(tx) = granted_tx.borrow_mut().take() {
            let _ = tx.send(granted);
        }
        if granted {
            held.into()
        } else {
            JsValue::UNDEFINED
        }
    });
    let name = JsValue::from_str(&format!("oncenote-intent-{key}"));
    request
        .call3(locks, &name, &options, callback.as_ref().unchecked_ref())
        .ok()?;
    if !granted_rx.await.unwrap_or(false) {
        return None;
    }
    let output = work.await;
    if let Some(release) = release {
        let _ = release.call0(&JsValue::UNDEFINED);
    }
    drop(callback);
    Some(output)
}
