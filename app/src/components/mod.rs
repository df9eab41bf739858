//! Pieces of pages: the masthead, the compose form, the status line, notices, the
//! unsaved list, note cards and the notes list, times in the reader's zone.

pub mod compose;
pub mod local_time;
pub mod masthead;
pub mod note_card;
pub mod notes_list;
pub mod notices;
pub mod status_line;
pub mod unsaved_list;
