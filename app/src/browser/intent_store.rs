//! Unsaved intents in localStorage, under one key. Every change reads, edits and writes
//! the stored list, so an intent another tab added in between is kept.

use gloo_storage::{LocalStorage, Storage};

use crate::save::intent::SaveIntent;

const STORAGE_KEY: &str = "oncenote.intents.v1";

/// Every stored intent, oldest first, as a fresh page should see them.
pub fn load_all() -> Vec<SaveIntent> {
    let mut intents: Vec<SaveIntent> = LocalStorage::get(STORAGE_KEY).unwrap_or_default();
    intents.sort_by(|a, b| a.written_at.cmp(&b.written_at));
    intents.into_iter().map(SaveIntent::after_reload).collect()
}

/// Adds or replaces one intent.
pub fn upsert(intent: &SaveIntent) -> Result<(), String> {
    let mut intents: Vec<SaveIntent> = LocalStorage::get(STORAGE_KEY).unwrap_or_default();
    match intents.iter_mut().find(|i| i.key == intent.key) {
        Some(stored) => *stored = intent.clone(),
        None => intents.push(intent.clone()),
    }
    LocalStorage::set(STORAGE_KEY, &intents).map_err(|e| e.to_string())
}

/// Forgets one intent (saved, or discarded).
pub fn remove(key: &str) {
    let mut intents: Vec<SaveIntent> = LocalStorage::get(STORAGE_KEY).unwrap_or_default();
    intents.retain(|i| i.key != key);
    let _ = LocalStorage::set(STORAGE_KEY, &intents);
}
