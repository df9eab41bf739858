//! Searching notes on SQLite: FTS5 ranked by bm25, the person's scope inside the match,
//! and the CJK bigrams the index holds beside the words.

use app::api::Note;

use super::SqliteStore;
use super::rank::RANK;
use super::tag_range::{TAGGED_IDS, TagRange};
use crate::storage::StorageError;
use crate::storage::rows::{NOTE_COLUMNS, NoteRow};
use crate::text::cjk;
use crate::text::query::{QuerySyntax, SearchQuery};

/// How many of a search's matches (the newest) are ranked; results page through these.
/// Past this many matches a query is too broad to read through anyway, and the
/// newest notes are the likelier ones.
pub const RANKED_MATCHES: i64 = 5_000;

impl SqliteStore {
    pub async fn search(
        &self,
        scope: &str,
        query: Option<&SearchQuery>,
        tags: &[String],
        limit: u32,
        offset: u32,
    ) -> Result<Vec<Note>, StorageError> {
        let tagged = if tags.is_empty() {
            ""
        } else {
            CARRIES_EVERY_TAG
        };
        let wanted = serde_json::to_string(tags).unwrap_or_default();
        let Some(query) = query else {
            // Only tags (the search module asks without words only then).
            let Some(first) = tags.first() else {
                return Ok(Vec::new());
            };
            let range = TagRange::of(first);
            let rows: Vec<NoteRow> = sqlx::query_as(&tags_only_sql())
                .bind(scope)
                .bind(scope)
                .bind(range.tag)
                .bind(range.tag)
                .bind(range.tag)
                .bind(range.nested_chars)
                .bind(&range.nested)
                .bind(&wanted)
                .bind(i64::from(limit))
                .bind(i64::from(offset))
                .fetch_all(&self.reader)
                .await?;
            return Ok(rows.into_iter().map(Note::from).collect());
        };
        // The title weighs ten times the body; ties go to the newer note. Only the newest
        // RANKED_MATCHES matches are ranked: FTS5 walks its index newest first and stops
        // there, so a word found in nearly every note costs a few thousand scores, not a
        // hundred thousand (at 100,000 notes: ~115 ms → ~12 ms, measured). The scope
        // column (see `search_match`) weighs nothing: it only keeps the match to the
        // person (its one token per note adds one to every length bm25 compares).
        let sql = ranked_search_sql(tagged);
        let mut search = sqlx::query_as::<_, NoteRow>(&sql)
            .bind(search_match(scope, query))
            .bind(scope);
        if !tags.is_empty() {
            search = search.bind(&wanted);
        }
        let rows = search
            .bind(RANKED_MATCHES)
            .bind(i64::from(limit))
            .bind(i64::from(offset))
            .fetch_all(&self.reader)
            .await?;
        Ok(rows.into_iter().map(Note::from).collect())
    }
}

/// A search by words (and `tagged`, the tags' filter or nothing): the newest
/// [`RANKED_MATCHES`] of the person's live matches, scored (bm25's score, by [`RANK`]:
/// `rank.rs`, which does not walk the scope token's rows), sorted, and only the page
/// asked for read whole. Each match's row is read once: the check of its scope and trash
/// takes its sort keys (`created_at`, `id`) too, so the sort needs no second read of
/// 5,000 rows, and only the page's notes are joined again for their columns.
pub(super) fn ranked_search_sql(tagged: &str) -> String {
    format!(
        "SELECT {} FROM ( \
             SELECT found, score, created_at, id FROM ( \
                 SELECT n.rowid AS found, {RANK}(notes_fts, 10.0, 1.0, 1.0, 0.0) AS score, \
                     n.created_at AS created_at, n.id AS id \
                 FROM notes_fts JOIN notes n ON n.rowid = notes_fts.rowid \
                 WHERE notes_fts MATCH ? AND n.scope = ? AND n.trashed_at IS NULL {tagged} \
                 ORDER BY notes_fts.rowid DESC LIMIT ? \
             ) ORDER BY score, created_at DESC, id LIMIT ? OFFSET ? \
         ) m JOIN notes n ON n.rowid = m.found \
         ORDER BY m.score, m.created_at DESC, m.id",
        prefixed("n", NOTE_COLUMNS),
    )
}

/// A search of tags only: the notes carrying the first tag (by the ids the tag index
/// gives: `+n.scope` keeps the planner from walking every live note of the person and
/// checking each, 112-121 ms at 100,000 notes whatever the tag), then every tag.
pub(super) fn tags_only_sql() -> String {
    format!(
        "SELECT {} FROM notes n WHERE +n.scope = ? AND n.trashed_at IS NULL \
         AND n.id IN ({TAGGED_IDS}) {CARRIES_EVERY_TAG} \
         ORDER BY n.created_at DESC, n.id DESC LIMIT ? OFFSET ?",
        prefixed("n", NOTE_COLUMNS)
    )
}

/// Keeps the notes `n` that carry every tag of the JSON array bound here, or a tag nested
/// under it (`#work` asks for `work` and `work/…`). With no tags asked for it is left out.
pub(super) const CARRIES_EVERY_TAG: &str = "AND NOT EXISTS (SELECT 1 FROM json_each(?) w WHERE NOT EXISTS \
     (SELECT 1 FROM note_tags t WHERE t.note_id = n.id \
     AND (t.tag = w.value OR substr(t.tag, 1, length(w.value) + 1) = w.value || '/')))";

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
