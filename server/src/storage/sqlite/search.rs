//! Searching notes on SQLite: FTS5 ranked by bm25, the person's scope inside the match,
//! and the CJK bigrams the index holds beside the words.

use app::api::Note;

use super::SqliteStore;
use crate::storage::StorageError;
use crate::storage::rows::{NOTE_COLUMNS, NoteRow};
use crate::text::cjk;
use crate::text::query::SearchQuery;

/// How many of a search's matches (the newest) are ranked; results page through these.
/// Past this many matches a query is too broad to read through anyway, and the
/// newest notes are the likelier ones.
pub const RANKED_MATCHES: i64 = 5_000;

impl SqliteStore {
    pub async fn search(
        &self,
        scope: &str,
        query: &SearchQuery,
        limit: u32,
        offset: u32,
    ) -> Result<Vec<Note>, StorageError> {
        // The title weighs ten times the body; ties go to the newer note. Only the newest
        // RANKED_MATCHES matches are ranked: FTS5 walks its index newest first and stops
        // there, so a word found in nearly every note costs a few thousand scores, not a
        // hundred thousand (at 100,000 notes: ~115 ms → ~12 ms, measured). The scope
        // column (see `search_match`) weighs nothing: it only keeps the match to the
        // person (its one token per note adds one to every length bm25 compares).
        let rows: Vec<NoteRow> = sqlx::query_as(&format!(
            "SELECT {} FROM ( \
                 SELECT n.rowid AS found, bm25(notes_fts, 10.0, 1.0, 1.0, 0.0) AS score \
                 FROM notes_fts JOIN notes n ON n.rowid = notes_fts.rowid \
                 WHERE notes_fts MATCH ? AND n.scope = ? AND n.trashed_at IS NULL \
                 ORDER BY notes_fts.rowid DESC LIMIT ? \
             ) m JOIN notes n ON n.rowid = m.found \
             ORDER BY m.score, n.created_at DESC, n.id LIMIT ? OFFSET ?",
            prefixed("n", NOTE_COLUMNS)
        ))
        .bind(search_match(scope, query))
        .bind(scope)
        .bind(RANKED_MATCHES)
        .bind(i64::from(limit))
        .bind(i64::from(offset))
        .fetch_all(&self.reader)
        .await?;
        Ok(rows.into_iter().map(Note::from).collect())
    }
}

/// The FTS5 `MATCH` expression of a search by `scope`: the query, and the person's
/// scope token in the `search_scope` column. FTS5 yields only rows holding both, stepping
/// through the person's list and the word's together, so another person's matches are
/// never joined, read or ranked: their number no longer shows in the time taken (what is
/// left is the stepping, when the two people's notes were written in turns; PROTOCOL.md
/// has the figures). The query's own terms are all on `title`, `body` or `cjk`, so
/// nothing typed can match a scope token.
pub fn search_match(scope: &str, query: &SearchQuery) -> String {
    format!(
        "search_scope: \"s{}\" AND ({})",
        hex::encode(scope.as_bytes()),
        query.to_fts5()
    )
}

/// The CJK bigrams of a note's title and body, for the search index.
pub(super) fn cjk_of(note: &Note) -> String {
    cjk::bigrams(&format!("{}\n{}", note.title, note.body))
}

/// `a, b` → `n.a, n.b`.
fn prefixed(table: &str, columns: &str) -> String {
    columns
        .split(", ")
        .map(|c| format!("{table}.{c}"))
        .collect::<Vec<_>>()
        .join(", ")
}
