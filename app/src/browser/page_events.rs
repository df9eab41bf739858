//! Wires the page to the browser once it is hydrated: what earlier visits left (intents,
//! the notes cache, this tab's draft), the offline copy following the feed, the events
//! that start a send (`online`, the tab shown again, the slow background retry), other
//! tabs' changes (`storage`), the warning before closing a tab with something unsaved,
//! other devices' writes (`live`), and the worker's kept pages deleted once the page's
//! person is no longer signed in.

use std::time::Duration;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

use super::drafts::{self, Draft};
use super::drain::{drain, gone_elsewhere};
use super::{
    file_upload, finished, intent_store, live, namespace, notes_cache, offline_copy, service_worker,
};
use crate::save::press::Link;
use crate::state::PageState;
use crate::state::editor::{Editor, EditorTarget};
use crate::state::queue::QueueEntry;

/// The slow retry while anything is unsaved and the browser says it is online: a server
/// that was restarting is reached without anyone pressing anything.
const BACKGROUND_RETRY: Duration = Duration::from_secs(60);

/// Runs once, after hydration.
pub fn start(page: PageState) {
    let (queue, known_notes, connection) = (page.queue, page.notes, page.connection);
    service_worker::register();
    super::search_online::load_other_pages_whole();
    // A page for nobody (sign in, setup): no one's queue to show or send.
    let Some(user) = namespace::read_user_from_page() else {
        return;
    };
    namespace::set_user(&user);
    namespace::adopt_legacy();
    queue.entries.set(stored_entries());
    known_notes.cached.set(notes_cache::load());
    restore_draft(page);
    keep_draft(page.editor);
    keep_draft(page.note_editor);
    keep_notes_cache(page);
    offline_copy::follow(page, read_username_from_page());
    forget_kept_pages_once_gone(page, user);
    connection.now_ms.set(js_sys::Date::now());
    let _ = set_interval_with_handle(
        move || connection.now_ms.set(js_sys::Date::now()),
        Duration::from_secs(1),
    );
    schedule_background_retry(page);

    let Some(window) = web_sys::window() else {
        return;
    };
    connection.online.set(window.navigator().on_line());
    listen(window.as_ref(), "online", move |_| {
        connection.online.set(true);
        file_upload::resume(page);
        drain(page);
        offline_copy::sync(page);
    });
    listen(window.as_ref(), "offline", move |_| {
        connection.online.set(false)
    });
    listen(window.as_ref(), "storage", move |event| {
        let key = event
            .dyn_ref::<web_sys::StorageEvent>()
            .and_then(|e| e.key());
        match key.as_deref() {
            Some(k) if intent_store::is_intent_entry(k) => reload_entries(page),
            Some(k) if k == notes_cache::storage_key() => {
                known_notes.cached.set(notes_cache::load())
            }
            Some(k) if k.starts_with("oncenote.") => {}
            // `localStorage.clear()` in another tab (key null): read everything again.
            None => {
                reload_entries(page);
                known_notes.cached.set(notes_cache::load());
            }
            _ => {}
        }
    });
    listen(window.as_ref(), "beforeunload", move |event| {
        let unsaved = queue.entries.with_untracked(|all| !all.is_empty());
        let typed = page.editors().iter().any(Editor::has_unpressed_text);
        if unsaved || typed {
            // Browsers show their own words; setting returnValue is what asks for it.
            event.prevent_default();
            if let Some(event) = event.dyn_ref::<web_sys::BeforeUnloadEvent>() {
                event.set_return_value("Some notes are not saved yet.");
            }
        }
    });
    // Back from the back/forward cache: other tabs may have changed everything.
    listen(window.as_ref(), "pageshow", move |_| reload_entries(page));
    if let Some(document) = window.document() {
        let doc = document.clone();
        listen(document.as_ref(), "visibilitychange", move |_| {
            if doc.visibility_state() == web_sys::VisibilityState::Visible {
                reload_entries(page);
                drain(page);
            }
        });
    }
    // Files kept from before a reload start uploading again (a PUT of the same name is
    // harmless), whether or not a note was saved with them yet.
    file_upload::resume(page);
    drain(page);
    live::start(page);
}

/// Once the page learns its person is no longer the one signed in on this browser (their
/// session ended — signed out here or on another device, a new password — or someone else
/// signed in), the pages and images the service worker kept of them go, and it forgets
/// them as the person signed in last: else, offline, it would still show their notes to
/// whoever is at this browser, as no page answer has told it (issue #60); so do the
/// excerpts of their notes the list keeps. Their unsaved writes and offline copy stay for
/// when they sign in again. Each time it happens: a
/// person who signs in again has pages kept anew.
fn forget_kept_pages_once_gone(page: PageState, user: String) {
    let connection = page.connection;
    Effect::new(move |was_gone: Option<bool>| {
        let gone = connection.session_ended.get() || connection.someone_else_signed_in.get();
        if gone && was_gone != Some(true) {
            // The list's excerpts of their notes too (this page's person's key).
            notes_cache::evict();
            let user = user.clone();
            leptos::task::spawn_local(async move {
                if let Err(error) = service_worker::forget(&user).await {
                    leptos::logging::warn!(
                        "the pages kept for offline could not be deleted: {error:?}"
                    );
                }
            });
        }
        gone
    });
}

/// The signed-in person's name, from a page the server rendered (`<body data-username>`);
/// the offline shell has none.
fn read_username_from_page() -> Option<String> {
    web_sys::window()?
        .document()?
        .body()?
        .get_attribute("data-username")
        .filter(|name| !name.is_empty())
}

/// What storage holds, as a freshly loaded page shows it: nothing of this tab is in
/// flight yet (another tab may be sending some; its lock keeps this tab off them).
fn stored_entries() -> Vec<QueueEntry> {
    intent_store::load_all()
        .into_iter()
        .map(|entry| match entry {
            QueueEntry::Intent(intent) => QueueEntry::Intent(intent.after_reload()),
            other => other,
        })
        .collect()
}

/// Reads the queue again after another tab changed it. Intents that left storage were
/// saved (or discarded) elsewhere: a draft linked to a saved one is emptied.
fn reload_entries(page: PageState) {
    let now = intent_store::load_all();
    let gone: Vec<String> = page.queue.entries.with_untracked(|before| {
        before
            .iter()
            .filter(|e| !now.iter().any(|n| n.id() == e.id()))
            .map(|e| e.id().to_owned())
            .collect()
    });
    for key in gone {
        gone_elsewhere(page, &key);
    }
    page.queue.entries.set(now);
}

/// Puts back what this tab had typed in the compose form before a reload (the note
/// page puts back its own, see `resume_draft`).
fn restore_draft(page: PageState) {
    resume_draft(page, page.editor);
}

/// Puts back what this tab had typed in `editor` before a reload, still linked to the
/// intent it was pressed on — unless that intent was saved meanwhile (then the editor
/// stays empty). Returns whether a draft was put back.
pub fn resume_draft(page: PageState, editor: Editor) -> bool {
    let target = editor.target.get_value();
    if let Some(draft) = drafts::load(&target)
        && editor.title.get_untracked().is_empty()
        && editor.body.get_untracked().is_empty()
    {
        let pressed_on = draft.link.clone();
        let link = draft.link.filter(|l| page.queue.intent(l.key()).is_some());
        let saved = pressed_on.as_ref().is_some_and(|l| {
            matches!(l, Link::Pressed(_)) && link.is_none() && finished::is_finished(l.key())
        });
        if !saved {
            editor.title.set(draft.title);
            editor.body.set(draft.body);
            editor.link.set(link);
            return true;
        }
    }
    false
}

/// Keeps every change of an editor's text as this tab's draft for its target.
fn keep_draft(editor: Editor) {
    Effect::new(move |_| {
        let draft = Draft {
            title: editor.title.get(),
            body: editor.body.get(),
            link: editor.link.get(),
        };
        let target = editor.target.get_value();
        // The note page's editor keeps nothing until it is pointed at a note.
        if editor.base_version.get() > 0 || target == EditorTarget::NewNote {
            drafts::keep(&target, &draft);
        }
    });
}

/// The browser keeps the last notes it saw: the page opened offline shows them, and other
/// tabs learn of notes saved here.
fn keep_notes_cache(page: PageState) {
    Effect::new(move |_| {
        // What this tab knows whole, and what the cache had that this tab does not.
        let mut notes = page.notes.saved.get();
        page.notes.cached.with(|cached| {
            for note in cached {
                if !notes.iter().any(|n| n.id == note.id) {
                    notes.push(note.clone());
                }
            }
        });
        notes.retain(|n| n.trashed_at.is_none() && !page.notes.is_gone(&n.id));
        notes.sort_by(|a, b| {
            b.created_at
                .cmp(&a.created_at)
                .then_with(|| b.id.cmp(&a.id))
        });
        notes_cache::keep(&notes);
    });
}

/// Every minute or so (with jitter, so tabs and devices do not retry in step), a new
/// burst while something waits to be sent and the browser is online.
fn schedule_background_retry(page: PageState) {
    let jitter = 0.75 + 0.5 * js_sys::Math::random();
    let delay = BACKGROUND_RETRY.mul_f64(jitter);
    set_timeout(
        move || {
            let waiting = !page.queue.sendable_keys().is_empty();
            if waiting && page.connection.online.get_untracked() {
                drain(page);
            }
            schedule_background_retry(page);
        },
        delay,
    );
}

fn listen(target: &web_sys::EventTarget, event: &str, handler: impl Fn(web_sys::Event) + 'static) {
    let closure = Closure::<dyn Fn(web_sys::Event)>::new(handler);
    let _ = target.add_event_listener_with_callback(event, closure.as_ref().unchecked_ref());
    // The listeners live as long as the page.
    closure.forget();
}
