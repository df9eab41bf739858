//! The editor's unsaved text, per tab (sessionStorage), so a reload or a crashed tab
//! loses nothing — and a second tab does not start with this tab's draft: Save there
//! would make a second note of it. The draft remembers which intent it was pressed on,
//! so after a reload another press still reuses that intent's key.

use gloo_storage::{LocalStorage, SessionStorage, Storage};
use serde::{Deserialize, Serialize};

use super::namespace;
use crate::save::press::Link;
use crate::state::editor::EditorTarget;

/// Where a target's draft is kept: the compose form's, or one per note being edited.
fn storage_key(target: &EditorTarget) -> String {
    match target {
        EditorTarget::NewNote => namespace::key("draft.v2"),
        EditorTarget::Note { id } => namespace::key(&format!("draft.v2.note.{id}")),
    }
}
/// The first version kept one draft in localStorage, shared by every tab.
const LEGACY_KEY: &str = "oncenote.draft.v1";

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Draft {
    pub title: String,
    pub body: String,
    #[serde(default)]
    pub link: Option<Link>,
}

/// This tab's draft for `target`, if any. A draft left by the first version is taken
/// over once, by the first compose form that looks (and removed from the shared storage).
pub fn load(target: &EditorTarget) -> Option<Draft> {
    if let Ok(draft) = SessionStorage::get::<Draft>(storage_key(target)) {
        return Some(draft);
    }
    if *target != EditorTarget::NewNote {
        return None;
    }
    #[derive(Deserialize)]
    struct Legacy {
        title: String,
        body: String,
    }
    let legacy = LocalStorage::get::<Legacy>(LEGACY_KEY).ok()?;
    LocalStorage::delete(LEGACY_KEY);
    Some(Draft {
        title: legacy.title,
        body: legacy.body,
        link: None,
    })
}

/// Keeps the editor's text; an empty editor keeps nothing. A refused write is skipped:
/// the text is still in the editor, and Save stores it as an intent.
pub fn keep(target: &EditorTarget, draft: &Draft) {
    if draft.title.is_empty() && draft.body.is_empty() {
        SessionStorage::delete(storage_key(target));
    } else {
        let _ = SessionStorage::set(storage_key(target), draft);
    }
}
