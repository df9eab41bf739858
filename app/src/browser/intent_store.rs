//! Unsaved intents in localStorage, one entry per intent (`oncenote.intent.<key>`).
//!
//! One entry each, not one list: localStorage has no read-modify-write across tabs, and
//! a shared list written back by one tab can bring back an intent another tab has just
//! removed. Each entry is written only by the tab that made it (once) and then by the tab
//! holding its lock (`tab_lock`), so no two tabs write the same entry at once.

use gloo_storage::{LocalStorage, Storage};

use crate::save::intent::SaveIntent;

const PREFIX: &str = "oncenote.intent.";

/// Whether a localStorage key (from a `storage` event) is one of ours.
pub fn is_intent_entry(storage_key: &str) -> bool {
    storage_key.starts_with(PREFIX)
}

fn entry(key: &str) -> String {
    format!("{PREFIX}{key}")
}

/// Every stored intent, oldest first, as the tabs left them.
pub fn load_current() -> Vec<SaveIntent> {
    let storage = LocalStorage::raw();
    let count = storage.length().unwrap_or(0);
    let names: Vec<String> = (0..count)
        .filter_map(|i| storage.key(i).ok().flatten())
        .filter(|name| is_intent_entry(name))
        .collect();
    let mut intents: Vec<SaveIntent> = names
        .iter()
        .filter_map(|name| LocalStorage::get::<SaveIntent>(name).ok())
        .collect();
    intents.sort_by(|a, b| {
        a.written_at
            .cmp(&b.written_at)
            .then_with(|| a.key.cmp(&b.key))
    });
    intents
}

/// Every stored intent, oldest first, as a freshly loaded page should see them. (Other
/// tabs may be sending some right now; the tab locks keep them from sending twice.)
pub fn load_all() -> Vec<SaveIntent> {
    load_current()
        .into_iter()
        .map(SaveIntent::after_reload)
        .collect()
}

/// One intent as stored now, if it is still there.
pub fn load(key: &str) -> Option<SaveIntent> {
    LocalStorage::get::<SaveIntent>(entry(key)).ok()
}

/// Stores a new intent.
pub fn insert(intent: &SaveIntent) -> Result<(), String> {
    LocalStorage::set(entry(&intent.key), intent).map_err(|e| e.to_string())
}

/// Replaces a stored intent; returns false (and stores nothing) if it is gone, i.e.
/// saved or discarded in the meantime.
pub fn update(intent: &SaveIntent) -> bool {
    if load(&intent.key).is_none() {
        return false;
    }
    LocalStorage::set(entry(&intent.key), intent).is_ok()
}

/// Forgets one intent (saved, or discarded).
pub fn remove(key: &str) {
    LocalStorage::delete(entry(key));
}
