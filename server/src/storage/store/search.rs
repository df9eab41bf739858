//! Full-text search of a person's notes.

use app::api::Note;

use super::Store;
use crate::storage::StorageError;
use crate::text::query::SearchQuery;

/// The search of a [`Store`].
pub struct Search<'a>(&'a Store);

impl Store {
    /// Full-text search of the notes.
    pub fn search(&self) -> Search<'_> {
        Search(self)
    }
}

delegate! {
    Search {
        /// Notes matching `query` and carrying every tag of `tags` (or one nested under
        /// it), not in the trash, best first (newest first without words): `limit` from
        /// `offset`.
        fn search(&self, scope: &str, query: Option<&SearchQuery>, tags: &[String], limit: u32, offset: u32) -> Result<Vec<Note>, StorageError>;
    }
}
