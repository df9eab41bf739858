//! The tags of a person's notes, counted; the notes a rename would rewrite.

use app::api::TagCount;

use super::Store;
use crate::storage::{StorageError, TaggedRead};

/// The tags of a [`Store`]. (A rename is a write: [`crate::storage::NoteWrites`].)
pub struct Tags<'a>(&'a Store);

impl Store {
    /// The tags of the notes.
    pub fn tags(&self) -> Tags<'_> {
        Tags(self)
    }
}

delegate! {
    Tags {
        /// Every tag of the notes outside the trash, by name, with how many notes carry it.
        fn tag_counts(&self, scope: &str) -> Result<Vec<TagCount>, StorageError>;
        /// The notes (in the trash or not) a rename of `tag` would rewrite — those tagged
        /// it or a tag nested under it — read from the readers, outside any write; or only
        /// their count and length when their titles and bodies pass `max_chars`.
        fn tagged_for_rename(&self, scope: &str, tag: &str, max_chars: u64) -> Result<TaggedRead, StorageError>;
    }
}
