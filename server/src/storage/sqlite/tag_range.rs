//! A tag and every tag nested under it, as a range of the tag index.

use sqlx::Sqlite;
use sqlx::query::QueryAs;
use sqlx::sqlite::SqliteArguments;

/// The ids of the person's notes carrying a tag or one nested under it: binds the scope,
/// then [`TagRange`]'s `tag`, `tag`, `tag`, `nested_chars`, `nested`. The range
/// (`tag` ≤ t < `tag` + "0") holds the tag and every `tag/…` ('/' sorts just before '0'),
/// so the tag index is read over that range only, not over every tag of the person.
pub(super) const TAGGED_IDS: &str = "SELECT note_id FROM note_tags WHERE scope = ? \
     AND tag >= ? AND tag < ? || '0' AND (tag = ? OR substr(tag, 1, ?) = ?)";

/// What [`TAGGED_IDS`] binds for a tag.
pub(super) struct TagRange<'a> {
    pub tag: &'a str,
    pub nested_chars: i64,
    pub nested: String,
}

impl<'a> TagRange<'a> {
    pub fn of(tag: &'a str) -> Self {
        let nested = format!("{tag}/");
        Self {
            tag,
            nested_chars: nested.chars().count() as i64,
            nested,
        }
    }
}

impl TagRange<'_> {
    /// `query` with what a statement that reads `+scope = ? AND id IN (TAGGED_IDS)` binds
    /// first: the scope (the statement's, then the tag index's), then the range.
    pub fn bound<'q, O>(
        &'q self,
        scope: &'q str,
        query: QueryAs<'q, Sqlite, O, SqliteArguments<'q>>,
    ) -> QueryAs<'q, Sqlite, O, SqliteArguments<'q>> {
        query
            .bind(scope)
            .bind(scope)
            .bind(self.tag)
            .bind(self.tag)
            .bind(self.tag)
            .bind(self.nested_chars)
            .bind(&self.nested)
    }
}
