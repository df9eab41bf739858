//! At most one tab sends a given intent at a time. With the Web Locks API (every current
//! browser) the lock is the browser's own and dies with its tab; without it, a lease in
//! localStorage (`crate::save::lease`) does the same job, less strictly.

use std::cell::RefCell;
use std::future::Future;

use futures::channel::oneshot;
use gloo_storage::{LocalStorage, Storage};
use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

use crate::save::lease::{LEASE_MS, Lease, may_take};

/// Runs `work` holding the lock for intent `key`, or returns `None` at once if another
/// tab holds it.
pub async fn exclusively<T>(tab: &str, key: &str, work: impl Future<Output = T>) -> Option<T> {
    match web_locks() {
        Some(locks) => with_web_lock(&locks, key, work).await,
        None => with_lease(tab, key, work).await,
    }
}

/// Renews this tab's lease on `key` (a no-op with Web Locks, which need no renewal).
pub fn renew(tab: &str, key: &str) {
    if web_locks().is_none() {
        take_lease(tab, key);
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

async fn with_lease<T>(tab: &str, key: &str, work: impl Future<Output = T>) -> Option<T> {
    if !take_lease(tab, key) {
        return None;
    }
    let output = work.await;
    LocalStorage::delete(lease_key(key));
    Some(output)
}

/// Takes or renews the lease; reads it back to lose gracefully to a tab that wrote in
/// between.
fn take_lease(tab: &str, key: &str) -> bool {
    let now = js_sys::Date::now();
    let existing = LocalStorage::get::<Lease>(lease_key(key)).ok();
    if !may_take(existing.as_ref(), tab, now) {
        return false;
    }
    let lease = Lease {
        owner: tab.to_owned(),
        expires_ms: now + LEASE_MS,
    };
    if LocalStorage::set(lease_key(key), &lease).is_err() {
        return false;
    }
    LocalStorage::get::<Lease>(lease_key(key)).is_ok_and(|stored| stored.owner == tab)
}

fn lease_key(key: &str) -> String {
    format!("oncenote.lease.{key}")
}
