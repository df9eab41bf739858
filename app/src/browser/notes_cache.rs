//! The last list of saved notes this browser saw, so the page opened offline still shows
//! them, and a note saved in one tab appears in the others (`storage` event).
//!
//! It is only a copy of what the server holds, so it is small and the first thing to
//! go: bodies are cut to what the list shows, the whole list is kept under
//! [`BUDGET_BYTES`] (oldest notes dropped first), a write the browser refuses is simply
//! skipped, and [`evict`] empties it when an intent needs the room.

use gloo_storage::{LocalStorage, Storage};

use super::namespace;
use crate::api::Note;
use crate::components::note_card::excerpt;
/// The most the cache may take of the site's ~5 MB.
pub const BUDGET_BYTES: usize = 64 * 1024;

/// This person's notes cache.
pub fn storage_key() -> String {
    namespace::key("notes.v2")
}

pub fn load() -> Vec<Note> {
    LocalStorage::get(storage_key()).unwrap_or_default()
}

/// Keeps the newest notes of `notes` (already newest first), cut to the budget. Writes
/// only on change, so two tabs echoing each other's `storage` events settle at once.
pub fn keep(notes: &[Note]) {
    let mut kept: Vec<Note> = notes
        .iter()
        .map(|n| Note {
            body: excerpt(&n.body),
            ..n.clone()
        })
        .collect();
    let mut json = serde_json::to_string(&kept).unwrap_or_default();
    while json.len() > BUDGET_BYTES && !kept.is_empty() {
        // Drop an eighth at a time from the old end; the budget is met in a few rounds.
        let keep = kept.len() - kept.len().div_ceil(8);
        kept.truncate(keep);
        json = serde_json::to_string(&kept).unwrap_or_default();
    }
    let storage = LocalStorage::raw();
    let key = storage_key();
    if storage.get_item(&key).ok().flatten().as_deref() != Some(json.as_str()) {
        let _ = storage.set_item(&key, &json);
    }
}

/// Frees the cache's room (for an intent that could not be stored).
pub fn evict() {
    LocalStorage::delete(storage_key());
}
