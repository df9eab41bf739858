//! The one door from the page to the save queue. A press of Save, Edit, Discard and
//! Retry now come in here; in the browser they go on to `browser::commands`, which
//! writes storage first and the signals after. On the server (rendering) nothing is
//! pressed, so each is a no-op there.

use leptos::prelude::*;

use crate::save::intent::IntentKind;
use crate::state::PageState;
use crate::state::editor::Editor;

/// After hydration: load what earlier visits left unsaved and start sending it.
pub fn start(page: PageState) {
    #[cfg(feature = "hydrate")]
    crate::browser::page_events::start(page);
    #[cfg(not(feature = "hydrate"))]
    let _ = page;
}

/// A press of Save in `editor` (click, Enter, or another click while the first is
/// sending): a new note from the compose form, an edit from the note page.
pub fn press_save(page: PageState, editor: Editor) {
    #[cfg(feature = "hydrate")]
    crate::browser::commands::press_save(page, editor);
    #[cfg(not(feature = "hydrate"))]
    let _ = (page, editor);
}

/// Moves a note to the trash, out of it, or deletes it for good: an intent like any
/// other, kept until the server has it.
pub fn change_note(page: PageState, kind: IntentKind) {
    #[cfg(feature = "hydrate")]
    crate::browser::commands::change_note(page, kind);
    #[cfg(not(feature = "hydrate"))]
    let _ = (page, kind);
}

/// Undoes a move to the trash made a moment ago.
pub fn undo_trash(page: PageState, note_id: String, title: String) {
    #[cfg(feature = "hydrate")]
    crate::browser::commands::undo_trash(page, note_id, title);
    #[cfg(not(feature = "hydrate"))]
    let _ = (page, note_id, title);
}

/// Loads a failed intent into the editor; the next Save replaces it with a new key.
pub fn edit(page: PageState, key: &str) {
    #[cfg(feature = "hydrate")]
    crate::browser::commands::edit(page, key);
    #[cfg(not(feature = "hydrate"))]
    let _ = (page, key);
}

/// Drops an unsaved entry for good (offered for refused and damaged ones).
pub fn discard(page: PageState, id: &str) {
    #[cfg(feature = "hydrate")]
    crate::browser::commands::discard(page, id);
    #[cfg(not(feature = "hydrate"))]
    let _ = (page, id);
}

/// Sends the queue now (a new burst for every unsaved intent).
pub fn retry_now(page: PageState) {
    #[cfg(feature = "hydrate")]
    crate::browser::drain::drain(page);
    #[cfg(not(feature = "hydrate"))]
    let _ = page;
}

/// Points the note page's editor at `note`: the version it starts from and its text. A
/// draft of this note this tab kept (a reload in the middle of an edit) is put back
/// instead. With `resume_only`, only such a draft opens the editor. Returns whether the
/// editor now holds text to edit.
pub fn open_note_editor(page: PageState, note: &crate::api::Note, resume_only: bool) -> bool {
    let editor = page.note_editor;
    editor
        .target
        .set_value(crate::state::editor::EditorTarget::Note {
            id: note.id.clone(),
        });
    editor.base_version.set(note.version);
    editor
        .original
        .set_value((note.title.clone(), note.body.clone()));
    editor.title.set(String::new());
    editor.body.set(String::new());
    editor.link.set(None);
    editor.notice.set(None);
    #[cfg(feature = "hydrate")]
    if crate::browser::page_events::resume_draft(page, editor) {
        return true;
    }
    if resume_only {
        return false;
    }
    editor.title.set(note.title.clone());
    editor.body.set(note.body.clone());
    true
}

/// Closes the note page's editor, dropping what was typed (a pressed edit stays queued).
pub fn close_note_editor(page: PageState) {
    let editor = page.note_editor;
    editor.title.set(String::new());
    editor.body.set(String::new());
    editor.link.set(None);
    editor.notice.set(None);
}

/// Restores an earlier version of a note: an edit back to its title and body, made from
/// the note's current version (restoring is itself a new edit).
pub fn restore_version(
    page: PageState,
    note_id: String,
    current_version: i64,
    title: String,
    body: String,
) {
    #[cfg(feature = "hydrate")]
    crate::browser::commands::restore_version(page, note_id, current_version, title, body);
    #[cfg(not(feature = "hydrate"))]
    let _ = (page, note_id, current_version, title, body);
}

/// Sends the chosen export file to the server's import, and says how it went.
pub fn import_file(event: leptos::ev::Event, message: RwSignal<Option<String>>) {
    #[cfg(feature = "hydrate")]
    crate::browser::commands::import_file(event, message);
    #[cfg(not(feature = "hydrate"))]
    let _ = (event, message);
}

/// Before signing out: with writes not yet saved, asks first (they stay in this browser,
/// kept for this person, and are sent when they sign in again).
pub fn confirm_sign_out(event: leptos::ev::SubmitEvent, page: PageState) {
    #[cfg(feature = "hydrate")]
    crate::browser::commands::confirm_sign_out(event, page);
    #[cfg(not(feature = "hydrate"))]
    let _ = (event, page);
}
