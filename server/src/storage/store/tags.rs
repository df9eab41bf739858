//! The tags of a person's notes, counted.

use app::api::TagCount;

use super::Store;
use crate::storage::StorageError;

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
    }
}
