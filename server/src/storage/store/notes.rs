//! The notes as the pages read them: lists, one note, its history, an export.

use app::api::{Note, NotesPage, Revision, RevisionsPage};

use super::Store;
use crate::records::cursor::Cursor;
#[cfg(feature = "bench-plain-insert")]
use crate::records::{Fingerprint, IdempotencyKey};
use crate::storage::StorageError;
use crate::storage::history::Versions;

/// The notes of a [`Store`]. (Their writes go through [`crate::storage::NoteWrites`],
/// inside a write's transaction.)
pub struct Notes<'a>(&'a Store);

impl Store {
    /// The notes: pages, one note, its history, every note of a person.
    pub fn notes(&self) -> Notes<'_> {
        Notes(self)
    }
}

delegate! {
    Notes {
        /// A page of notes not in the trash: pinned first, newest first among each; with
        /// `tag`, only the notes tagged with it or a tag nested under it.
        fn list_notes(&self, scope: &str, limit: u32, cursor: Option<&Cursor>, tag: Option<&str>) -> Result<NotesPage, StorageError>;
        /// A page of the notes in the trash, latest moved first.
        fn list_trash(&self, scope: &str, limit: u32, cursor: Option<&Cursor>) -> Result<NotesPage, StorageError>;
        /// One note (in the trash or not).
        fn get_note(&self, scope: &str, id: &str) -> Result<Option<Note>, StorageError>;
        /// A page of a note's history, at most `limit` versions without their bodies, from
        /// where `versions` says; `None` if there is no such note.
        fn history(&self, scope: &str, id: &str, versions: Versions, limit: u32) -> Result<Option<RevisionsPage>, StorageError>;
        /// One version of a note, with its body; `None` if the note has no such version.
        fn revision(&self, scope: &str, id: &str, version: i64) -> Result<Option<Revision>, StorageError>;
        /// Every note of a scope (for an export), in the trash or not, oldest first.
        fn all_notes(&self, scope: &str) -> Result<Vec<Note>, StorageError>;
        /// The benchmark's baseline: the same note insert with no idempotency at all.
        #[cfg(feature = "bench-plain-insert")]
        fn plain_insert(&self, scope: &str, key: &IdempotencyKey, fingerprint: &Fingerprint, note: &Note) -> Result<bool, StorageError>;
    }
}
