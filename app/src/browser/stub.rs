//! The browser glue's entry points for a build without a browser (server rendering,
//! native tests): nothing is pressed there and nothing is stored, so each does nothing.
//! The hydrate build has the real `browser` module (`mod.rs`) in this one's place; the
//! signatures are the same, so the door (`door.rs`) names one set of functions.

use leptos::prelude::RwSignal;

use crate::api::Note;
use crate::save::intent::IntentKind;
use crate::state::PageState;
use crate::state::editor::Editor;

/// After hydration: nothing to load without a browser.
pub fn start(_page: PageState) {}

/// A press of Save.
pub fn press_save(_page: PageState, _editor: Editor) {}

/// A move to the trash, out of it, or a delete for good.
pub fn change_note(_page: PageState, _kind: IntentKind) {}

/// Undoing a move to the trash.
pub fn undo_trash(_page: PageState, _note_id: String, _title: String) {}

/// Loading a failed intent into its editor.
pub fn edit(_page: PageState, _key: &str) {}

/// Dropping an unsaved entry.
pub fn discard(_page: PageState, _id: &str) {}

/// Sending the queue now.
pub fn retry_now(_page: PageState) {}

/// Restoring an earlier version of a note.
pub fn restore_version(
    _page: PageState,
    _note_id: String,
    _current_version: i64,
    _title: String,
    _body: String,
) {
}

/// Ticking a task of a note.
pub fn tick_task(_page: PageState, _note: Note, _line: usize, _checked: bool) {}

/// Putting back a draft this tab kept: there is none without a browser.
pub fn resume_draft(_page: PageState, _editor: Editor) -> bool {
    false
}

/// Importing an export file.
pub fn import_file(_event: leptos::ev::Event, _stage: RwSignal<crate::state::import::ImportStage>) {
}

/// Files pasted into an editor's body.
pub fn attach_pasted(
    _page: PageState,
    _editor: Editor,
    _textarea: &'static str,
    _event: leptos::ev::ClipboardEvent,
) {
}

/// Files dropped on an editor's body.
pub fn attach_dropped(
    _page: PageState,
    _editor: Editor,
    _textarea: &'static str,
    _event: leptos::ev::DragEvent,
) {
}

/// Files picked with "Attach file".
pub fn attach_picked(
    _page: PageState,
    _editor: Editor,
    _textarea: &'static str,
    _event: leptos::ev::Event,
) {
}

/// Reading the person's files for the account page: only the browser does.
pub fn load_files(_into: RwSignal<Option<Result<crate::api::FileList, String>>>) {}

/// Reading the next page of them.
pub fn load_more_files(
    _into: RwSignal<Option<Result<crate::api::FileList, String>>>,
    _cursor: String,
    _failed: RwSignal<Option<String>>,
) {
}

/// The account page's tokens: only the browser lists, makes and revokes them.
pub fn load_tokens(_into: RwSignal<Option<Result<crate::api::TokenList, String>>>) {}

/// Making a token.
pub fn make_token(
    _name: String,
    _list: RwSignal<Option<Result<crate::api::TokenList, String>>>,
    _made: RwSignal<Option<crate::api::TokenMade>>,
    _message: RwSignal<Option<String>>,
) {
}

/// Revoking a token.
pub fn revoke_token(
    _id: String,
    _name: String,
    _list: RwSignal<Option<Result<crate::api::TokenList, String>>>,
    _message: RwSignal<Option<String>>,
) {
}

/// Asking before signing out.
pub fn confirm_sign_out(_event: leptos::ev::SubmitEvent, _page: PageState) {}
