//! The editor's unsaved text in localStorage, so a reload or a crashed tab loses nothing.

use gloo_storage::{LocalStorage, Storage};
use serde::{Deserialize, Serialize};

const STORAGE_KEY: &str = "oncenote.draft.v1";

#[derive(Serialize, Deserialize)]
struct Draft {
    title: String,
    body: String,
}

/// The kept draft, if any.
pub fn load() -> Option<(String, String)> {
    LocalStorage::get::<Draft>(STORAGE_KEY)
        .ok()
        .map(|d| (d.title, d.body))
}

/// Keeps the editor's text; an empty editor keeps nothing.
pub fn keep(title: &str, body: &str) {
    if title.is_empty() && body.is_empty() {
        LocalStorage::delete(STORAGE_KEY);
    } else {
        let _ = LocalStorage::set(
            STORAGE_KEY,
            Draft {
                title: title.to_owned(),
                body: body.to_owned(),
            },
        );
    }
}
