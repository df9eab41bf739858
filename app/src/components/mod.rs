//! Pieces of pages: the masthead, the compose form, files attached to a note, the
//! account's files and tokens, the search forms' way to the results, the status line, notices, the
//! unsaved list, note cards and the notes list, pins, tags as links, times in the reader's
//! zone.

pub mod account_files;
pub mod account_tokens;
pub mod attachments;
pub mod compose;
pub mod import_form;
pub mod local_time;
pub mod masthead;
pub mod note_body;
pub mod note_card;
pub mod notes_list;
pub mod notices;
pub mod pin_button;
pub mod search_form;
pub mod status_line;
pub mod tag_chips;
pub mod unsaved_list;
