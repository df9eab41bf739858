//! IndexedDB, the little of it the offline copy needs, as futures: open a database
//! (making its stores the first time), wait for a request or a transaction, delete a
//! database. web-sys's bindings directly, with no crate between: the wasm stays small.
//!
//! A request's success event wakes the future, whose task runs in a microtask of that
//! event: the transaction is still active there, so the next request can be made in the
//! same transaction after an `await` (the same guarantee the `idb` JS library relies on).

use std::cell::Cell;
use std::rc::Rc;

use futures::channel::oneshot;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{IdbDatabase, IdbFactory, IdbRequest, IdbRequestReadyState, IdbTransaction};

/// Why IndexedDB did not do what was asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdbError {
    /// The browser has no IndexedDB here (some private windows, storage turned off).
    Unavailable,
    /// The browser refused to store more (`QuotaExceededError`).
    Full,
    /// Any other failure, with its name.
    Failed(String),
}

impl IdbError {
    fn from_js(error: JsValue) -> Self {
        let name = error
            .dyn_ref::<web_sys::DomException>()
            .map(web_sys::DomException::name)
            .unwrap_or_default();
        match name.as_str() {
            "QuotaExceededError" => IdbError::Full,
            "InvalidStateError" | "SecurityError" | "UnknownError" => IdbError::Unavailable,
            _ => IdbError::Failed(name),
        }
    }
}

fn factory() -> Result<IdbFactory, IdbError> {
    web_sys::window()
        .and_then(|w| w.indexed_db().ok().flatten())
        .ok_or(IdbError::Unavailable)
}

/// Calls back once, the first time any of the events it is set on fires; the callback
/// is dropped when the wait ends, so no closure outlives its request.
struct Once {
    _closure: Closure<dyn FnMut(web_sys::Event)>,
    fired: oneshot::Receiver<()>,
}

impl Once {
    fn new() -> Self {
        let (send, fired) = oneshot::channel();
        let send = Rc::new(Cell::new(Some(send)));
        let closure = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
            if let Some(send) = send.take() {
                let _ = send.send(());
            }
        });
        Self {
            _closure: closure,
            fired,
        }
    }

    fn callback(&self) -> &js_sys::Function {
        self._closure.as_ref().unchecked_ref()
    }

    async fn wait(self) {
        let _ = self.fired.await;
    }
}

/// The result of a request, once it succeeded or failed.
///
/// A request made before an earlier one was awaited may be done already: then its
/// result is read at once (its event has fired, and would never call back). Not for the
/// request of `open`, which is "done" during `upgradeneeded`, before its success.
pub async fn settle(request: &IdbRequest) -> Result<JsValue, IdbError> {
    if request.ready_state() != IdbRequestReadyState::Done {
        let once = Once::new();
        request.set_onsuccess(Some(once.callback()));
        request.set_onerror(Some(once.callback()));
        once.wait().await;
        request.set_onsuccess(None);
        request.set_onerror(None);
    }
    match request.error() {
        Ok(None) => request.result().map_err(IdbError::from_js),
        Ok(Some(error)) => Err(IdbError::from_js(error.into())),
        Err(error) => Err(IdbError::from_js(error)),
    }
}

/// Waits until a transaction is committed (or has failed: then why).
pub async fn committed(transaction: &IdbTransaction) -> Result<(), IdbError> {
    outcome(transaction).wait().await
}

/// A transaction's end, watched from before its requests are awaited: a transaction
/// whose requests are awaited a slice at a time (each slice its own task) may abort while
/// one is awaited, and its end is still seen. Dropped unawaited, it stops watching.
pub struct Outcome {
    once: Option<Once>,
    transaction: IdbTransaction,
}

/// Starts watching `transaction` for its end: committed (`complete`) or not (`abort`).
/// Not `error`: a request's error reaches the transaction before the transaction aborts
/// and says why, so woken by it the transaction would still look fine.
pub fn outcome(transaction: &IdbTransaction) -> Outcome {
    let once = Once::new();
    transaction.set_oncomplete(Some(once.callback()));
    transaction.set_onabort(Some(once.callback()));
    Outcome {
        once: Some(once),
        transaction: transaction.clone(),
    }
}

impl Outcome {
    /// Waits for the end: `Ok` once committed, else why it failed.
    pub async fn wait(mut self) -> Result<(), IdbError> {
        if let Some(once) = self.once.take() {
            once.wait().await;
        }
        match self.transaction.error() {
            None => Ok(()),
            Some(error) => Err(IdbError::from_js(error.into())),
        }
    }
}

impl Drop for Outcome {
    /// No callback outlives the watch (its closure is dropped with it).
    fn drop(&mut self) {
        self.transaction.set_oncomplete(None);
        self.transaction.set_onabort(None);
    }
}

/// Opens the database `name` at `version`, making the object `stores` (out-of-line keys)
/// it does not have yet. The connection closes itself when another tab wants the database
/// changed or deleted (a sign-out), so it never blocks that.
pub async fn open(name: &str, version: u32, stores: &[&str]) -> Result<IdbDatabase, IdbError> {
    let request = factory()?
        .open_with_u32(name, version)
        .map_err(IdbError::from_js)?;
    let stores: Vec<String> = stores.iter().map(|s| (*s).to_owned()).collect();
    let upgrade_target = request.clone();
    let upgrade = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
        if let Ok(db) = upgrade_target
            .result()
            .and_then(|r| r.dyn_into::<IdbDatabase>())
        {
            for store in &stores {
                if !db.object_store_names().contains(store) {
                    let _ = db.create_object_store(store);
                }
            }
        }
    });
    request.set_onupgradeneeded(Some(upgrade.as_ref().unchecked_ref()));
    let result = settle(&request).await;
    request.set_onupgradeneeded(None);
    let db: IdbDatabase = result?.dyn_into().map_err(IdbError::from_js)?;
    let closing = db.clone();
    let on_change = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| closing.close());
    db.set_onversionchange(Some(on_change.as_ref().unchecked_ref()));
    // Lives as long as the connection, which lives as long as the page.
    on_change.forget();
    Ok(db)
}

/// Deletes the database `name` (every tab's connection to it closes itself first).
pub async fn delete(name: &str) -> Result<(), IdbError> {
    let request = factory()?
        .delete_database(name)
        .map_err(IdbError::from_js)?;
    settle(&request).await.map(|_| ())
}
