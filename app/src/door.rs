//! The one door from the page to the save queue. A press of Save, a tick of a task, Edit,
//! Discard, Retry now, the moves to the trash and back, pins, tag renames, files added to
//! a note, import and sign-out come in here, and go on to the browser glue
//! (`crate::browser`), which writes storage first and the signals after. On the server
//! (rendering) nothing is pressed: there the glue is a stub whose entry points do nothing.

use crate::api::Note;
use crate::browser;
use crate::state::PageState;

pub use crate::browser::{
    attach_dropped, attach_pasted, attach_picked, change_note, confirm_sign_out, discard, edit,
    import_file, load_files, load_more_files, load_tokens, make_token, press_save, restore_version,
    retry_now, revoke_token, start, tick_task, undo_trash,
};

/// Points the note page's editor at `note`: the version it starts from and its text. A
/// draft of this note this tab kept (a reload in the middle of an edit) is put back
/// instead. With `resume_only`, only such a draft opens the editor. Returns whether the
/// editor now holds text to edit.
pub fn open_note_editor(page: PageState, note: &Note, resume_only: bool) -> bool {
    let editor = page.note_editor;
    editor.point_at(note);
    if browser::resume_draft(page, editor) {
        return true;
    }
    if resume_only {
        return false;
    }
    editor.fill(&note.title, &note.body);
    true
}

/// Closes the note page's editor, dropping what was typed (a pressed edit stays queued).
pub fn close_note_editor(page: PageState) {
    page.note_editor.close();
}
