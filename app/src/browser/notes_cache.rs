//! The last list of saved notes this browser saw, so the page opened offline still shows
//! them, and a note saved in one tab appears in the others (`storage` event).

use gloo_storage::{LocalStorage, Storage};

use crate::api::Note;

const STORAGE_KEY: &str = "oncenote.notes.v1";
/// Enough for the page; older notes come from the server when online.
const KEEP: usize = 200;

pub const fn storage_key() -> &'static str {
    STORAGE_KEY
}

pub fn load() -> Vec<Note> {
    LocalStorage::get(STORAGE_KEY).unwrap_or_default()
}

/// Keeps the newest notes of `notes` (already newest first). Writes only on change, so
/// two tabs echoing each other's `storage` events settle at once.
pub fn keep(notes: &[Note]) {
    let newest = &notes[..notes.len().min(KEEP)];
    let unchanged = LocalStorage::get::<Vec<Note>>(STORAGE_KEY).is_ok_and(|kept| kept == newest);
    if !unchanged {
        let _ = LocalStorage::set(STORAGE_KEY, newest);
    }
}
