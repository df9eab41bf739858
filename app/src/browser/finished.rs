//! A short record of intents finished lately (key → note id), in localStorage. A tab that
//! finishes an intent writes it; the tab that made the intent learns from it (through the
//! `storage` event, or when it wakes) that its draft is saved, so it empties its editor
//! instead of letting a press make a second note of it.

use gloo_storage::{LocalStorage, Storage};
use serde::{Deserialize, Serialize};

const STORAGE_KEY: &str = "oncenote.finished.v1";
/// Enough for every tab to catch up; older records are dropped.
const KEEP: usize = 64;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finished {
    pub key: String,
    pub note_id: String,
}

/// Every recent record, oldest first.
pub fn recent() -> Vec<Finished> {
    LocalStorage::get(STORAGE_KEY).unwrap_or_default()
}

/// Records that the intent `key` is stored as note `note_id`; false if the browser
/// refused the write (storage full).
pub fn record(key: &str, note_id: &str) -> bool {
    let mut all = recent();
    all.retain(|f| f.key != key);
    all.push(Finished {
        key: key.to_owned(),
        note_id: note_id.to_owned(),
    });
    let start = all.len().saturating_sub(KEEP);
    LocalStorage::set(STORAGE_KEY, &all[start..]).is_ok()
}

/// Whether the intent `key` was finished lately.
pub fn is_finished(key: &str) -> bool {
    recent().iter().any(|f| f.key == key)
}
