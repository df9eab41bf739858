//! Unsaved intents in localStorage, one entry per intent (`oncenote.u.<person>.intent.<key>`).
//!
//! One entry each, not one list: localStorage has no read-modify-write across tabs, and
//! a shared list written back by one tab can bring back an intent another tab has just
//! removed. Each entry is written by the tab that made it (once) and then only by the tab
//! holding its lock (`tab_lock`).
//!
//! Every write says what happened: written, refused by the browser (storage full or
//! disabled), or — for an update — gone because another tab finished the intent. Code
//! that cannot tell "the write failed" from "someone else finished it" loses notes.

use gloo_storage::{LocalStorage, Storage};

use super::{namespace, notes_cache};
use crate::save::intent::{SaveIntent, queue_order, read_stored};
use crate::state::queue::QueueEntry;

/// Where this person's intents are kept: `oncenote.u.<person>.intent.<key>`.
fn prefix() -> String {
    namespace::key("intent.")
}

/// The browser refused to store an entry (its storage is full, or turned off).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotWritten(pub String);

/// What an update of a stored intent did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Update {
    Written,
    /// The entry is gone: saved or discarded meanwhile (by another tab). Nothing written.
    Gone,
    /// The browser refused the write; the stored entry is as it was (still sendable).
    NotWritten(NotWritten),
}

/// Whether a localStorage key (from a `storage` event) is an intent's.
pub fn is_intent_entry(storage_key: &str) -> bool {
    storage_key.starts_with(&prefix())
}

fn entry(key: &str) -> String {
    format!("{}{key}", prefix())
}

/// Every stored entry, oldest first — unreadable ones too, never skipped.
pub fn load_all() -> Vec<QueueEntry> {
    let storage = LocalStorage::raw();
    let count = storage.length().unwrap_or(0);
    let names: Vec<String> = (0..count)
        .filter_map(|i| storage.key(i).ok().flatten())
        .filter(|name| is_intent_entry(name))
        .collect();
    let mut entries: Vec<QueueEntry> = names
        .into_iter()
        .filter_map(|name| {
            let raw = storage.get_item(&name).ok().flatten()?;
            Some(match read_stored(&raw) {
                Ok(intent) => QueueEntry::Intent(intent),
                Err(why) => QueueEntry::Unreadable {
                    storage_key: name,
                    raw,
                    why,
                },
            })
        })
        .collect();
    entries.sort_by(|a, b| order(a).cmp(&order(b)));
    entries
}

/// Unreadable entries first (they are shown, not sent), then intents in press order.
fn order(entry: &QueueEntry) -> (bool, (bool, u64, &str, &str)) {
    match entry {
        QueueEntry::Intent(intent) => (true, queue_order(intent)),
        QueueEntry::Unreadable { storage_key, .. } => (false, (false, 0, "", storage_key)),
    }
}

/// The press counter: `oncenote.u.<person>.press-counter`, shared by the tabs.
fn counter_entry() -> String {
    namespace::key("press-counter")
}

/// The next press's place in the queue: one more than any before it in this browser —
/// the stored counter, or any stored intent's, whichever is higher (so a counter lost
/// with a cleared entry never goes back while intents wait). Never the clock.
pub fn next_seq() -> u64 {
    let storage = LocalStorage::raw();
    let stored: u64 = storage
        .get_item(&counter_entry())
        .ok()
        .flatten()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let highest_waiting = load_all()
        .iter()
        .filter_map(|entry| match entry {
            QueueEntry::Intent(intent) => intent.seq,
            QueueEntry::Unreadable { .. } => None,
        })
        .max()
        .unwrap_or(0);
    let next = stored.max(highest_waiting) + 1;
    // If the browser refuses this small write, the intent's own write is refused next
    // and Save says so; the intents' counters still keep the order.
    let _ = storage.set_item(&counter_entry(), &next.to_string());
    next
}

/// One intent as stored now: `None` if it is gone (or no longer readable).
pub fn load(key: &str) -> Option<SaveIntent> {
    let raw = LocalStorage::raw().get_item(&entry(key)).ok().flatten()?;
    read_stored(&raw).ok()
}

/// Stores a new intent. When the browser refuses for lack of room, the notes cache —
/// only a copy of what the server holds — is dropped first and the write tried again.
pub fn insert(intent: &SaveIntent) -> Result<(), NotWritten> {
    let json = serde_json::to_string(intent).map_err(|e| NotWritten(e.to_string()))?;
    let storage = LocalStorage::raw();
    if storage.set_item(&entry(&intent.key), &json).is_ok() {
        return Ok(());
    }
    notes_cache::evict();
    storage
        .set_item(&entry(&intent.key), &json)
        .map_err(|error| NotWritten(describe(&error)))
}

/// Replaces a stored intent, unless it is gone.
pub fn update(intent: &SaveIntent) -> Update {
    if LocalStorage::raw()
        .get_item(&entry(&intent.key))
        .ok()
        .flatten()
        .is_none()
    {
        return Update::Gone;
    }
    match insert(intent) {
        Ok(()) => Update::Written,
        Err(refused) => Update::NotWritten(refused),
    }
}

/// Forgets an intent (saved, or discarded) by its key.
pub fn remove(key: &str) {
    LocalStorage::delete(entry(key));
}

/// Forgets an unreadable entry by its storage key.
pub fn remove_entry(storage_key: &str) {
    if is_intent_entry(storage_key) {
        LocalStorage::delete(storage_key);
    }
}

/// The browser's reason, in words: `QuotaExceededError` becomes "storage is full".
fn describe(error: &wasm_bindgen::JsValue) -> String {
    let name = js_sys::Reflect::get(error, &"name".into())
        .ok()
        .and_then(|n| n.as_string())
        .unwrap_or_default();
    if name.contains("Quota") {
        "this browser's storage for the site is full".to_owned()
    } else {
        "this browser would not store it (storage may be turned off)".to_owned()
    }
}
