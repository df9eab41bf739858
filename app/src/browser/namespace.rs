//! Whose data the browser's storage holds. Every key of this app's storage starts with the
//! signed-in person's id (`oncenote.u.<id>.…`), so two people who sign in on one browser
//! never see — or send — each other's queue, drafts or notes. The page says who is signed
//! in (`<body data-user>`, rendered by the server); with nobody signed in, nothing is read.
//!
//! Data from before accounts (keys without a person) is taken over by the first person who
//! signs in on this browser — on a server from before accounts, that was the only person.

use std::cell::RefCell;

use gloo_storage::{LocalStorage, SessionStorage, Storage};

thread_local! {
    static USER: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// The signed-in person, from the page: `None` on pages for nobody (sign in, setup).
pub fn read_user_from_page() -> Option<String> {
    web_sys::window()?
        .document()?
        .body()?
        .get_attribute("data-user")
        .filter(|id| !id.is_empty())
}

pub fn set_user(id: &str) {
    USER.with(|user| *user.borrow_mut() = Some(id.to_owned()));
}

/// The person this page was opened for (who its queue belongs to), once set.
pub fn user() -> Option<String> {
    USER.with(|user| user.borrow().clone())
}

/// The key of `name` in the signed-in person's part of the storage.
pub fn key(name: &str) -> String {
    let user = user().unwrap_or_default();
    format!("oncenote.u.{user}.{name}")
}

/// Moves what earlier versions kept without a person into this person's part.
pub fn adopt_legacy() {
    let local = LocalStorage::raw();
    let names: Vec<String> = (0..local.length().unwrap_or(0))
        .filter_map(|i| local.key(i).ok().flatten())
        .collect();
    for name in names {
        let moved = if let Some(rest) = name.strip_prefix("oncenote.intent.") {
            Some(key(&format!("intent.{rest}")))
        } else if name == "oncenote.finished.v1" {
            Some(key("finished.v1"))
        } else {
            None
        };
        if let Some(to) = moved
            && let Ok(Some(value)) = local.get_item(&name)
            && local.set_item(&to, &value).is_ok()
        {
            let _ = local.remove_item(&name);
        }
    }
    // The notes cache is only a copy: the old ones go.
    for old in ["oncenote.notes.v1", "oncenote.notes.v2"] {
        LocalStorage::delete(old);
    }
    let session = SessionStorage::raw();
    let names: Vec<String> = (0..session.length().unwrap_or(0))
        .filter_map(|i| session.key(i).ok().flatten())
        .filter(|name| name.starts_with("oncenote.draft."))
        .collect();
    for name in names {
        if let Ok(Some(value)) = session.get_item(&name) {
            let rest = name.trim_start_matches("oncenote.");
            if session.set_item(&key(rest), &value).is_ok() {
                let _ = session.remove_item(&name);
            }
        }
    }
}
