//! Pieces of pages: the compose form, the status line, the unsaved list, the note list.

pub mod compose;
pub mod notes_list;
pub mod status_line;
pub mod unsaved_list;
