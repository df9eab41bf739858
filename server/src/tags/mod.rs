//! Tags: the list with counts, and renaming a tag in every note that has it (one write,
//! saved exactly once). Finding tags in text is `text::tags`; which notes carry which tag
//! is kept by the storage with every write of a note.

pub mod rename;
pub mod routes;
