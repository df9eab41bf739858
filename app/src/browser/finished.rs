//! A short record of intents finished lately (key → note id), in localStorage. A tab that
//! finishes an intent writes it; the tab that made the intent learns from it (through the
//! `storage` event, or when it wakes) that its draft is saved, so it empties its editor
//! instead of letting a press make a second note of it.

use gloo_storage::{LocalStorage, Storage};
use serde::{Deserialize, Serialize};

use super::namespace;

fn storage_key() -> String {
    namespace::key("finished.v1")
}
/// Enough for every tab to catch up; older records are dropped.
const KEEP: usize = 64;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finished {
    pub key: String,
    /// The note the write was about (empty for a delete for good).
    pub note_id: String,
    /// For an edit applied as sent: the version it started from and the one it made, so
    /// a later edit made behind it can start from its result.
    #[serde(default)]
    pub applied: Option<(i64, i64)>,
}

/// Every recent record, oldest first.
pub fn recent() -> Vec<Finished> {
    LocalStorage::get(storage_key()).unwrap_or_default()
}

/// Records that the intent `key` is stored; false if the browser refused the write
/// (storage full).
pub fn record(finished: Finished) -> bool {
    let mut all = recent();
    all.retain(|f| f.key != finished.key);
    all.push(finished);
    let start = all.len().saturating_sub(KEEP);
    LocalStorage::set(storage_key(), &all[start..]).is_ok()
}

/// Whether the intent `key` was finished lately.
pub fn is_finished(key: &str) -> bool {
    find(key).is_some()
}

/// The record of the intent `key`, if it was finished lately.
pub fn find(key: &str) -> Option<Finished> {
    recent().into_iter().find(|f| f.key == key)
}
