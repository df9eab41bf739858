//! Searching notes on PostgreSQL: a weighted tsvector per note, the person's scope
//! lexeme inside the match, and one plan for every query.

use app::api::Note;

use super::PgStore;
use crate::storage::StorageError;
use crate::storage::rows::{NOTE_COLUMNS, NoteRow};
use crate::text::cjk;
use crate::text::document;
use crate::text::query::{QuerySyntax, SearchQuery};

/// The search document of a note: title words (A), body words (B), CJK bigrams (C).
pub(super) const SEARCH_DOCUMENT: &str = "setweight(to_tsvector('simple', $1), 'A') || \
     setweight(to_tsvector('simple', $2), 'B') || setweight(to_tsvector('simple', $3), 'C')";

/// The full-text match of a search: `q` the parsed query (`$1`, from
/// `SearchQuery::to_tsquery`), `$2` the person's [`scope_lexeme`]. Both go to the index
/// `notes_scoped_search` together, so it yields the person's own matches only: another
/// person's notes holding the word are never read, and cannot show in the time taken.
pub const SEARCH_MATCH: &str = "search_scope @@ $2::tsquery AND search @@ q";

/// A search: `$1` the query (`SearchQuery::to_tsquery`), `$2` the person's
/// [`scope_lexeme`], `$3` the scope, `$4` and `$5` the page's limit and offset.
///
/// The query is a subquery the planner does not look into (`OFFSET 0`): with the word in
/// sight, its statistics (how many notes hold it, anyone's) would choose the plan, and a
/// word other people's notes hold often would be answered by a sequential scan over
/// everyone's notes, a rare one by the index: the time would tell which. Without it,
/// every search takes the scoped index.
pub fn search_sql() -> String {
    search_sql_with("")
}

/// Keeps the notes that carry every tag of the array `$6`, or a tag nested under it
/// (`#work` asks for `work` and `work/…`). With no tags asked for it is left out.
const CARRIES_EVERY_TAG: &str = "AND NOT EXISTS (SELECT 1 FROM unnest($6::text[]) AS w(tag) \
     WHERE NOT EXISTS (SELECT 1 FROM note_tags t WHERE t.note_id = notes.id \
     AND (t.tag = w.tag OR left(t.tag, length(w.tag) + 1) = w.tag || '/')))";

fn search_sql_with(tagged: &str) -> String {
    format!(
        "SELECT {NOTE_COLUMNS} FROM notes, \
         (SELECT to_tsquery('simple', $1) AS q OFFSET 0) AS query \
         WHERE scope = $3 AND trashed_at IS NULL AND {SEARCH_MATCH} {tagged} \
         ORDER BY ts_rank_cd('{{0.1, 0.1, 0.1, 1.0}}', search, q, 1) DESC, created_at DESC, id \
         LIMIT $4 OFFSET $5"
    )
}

/// The scope as a tsquery of its one lexeme (as `search_scope` holds it).
pub fn scope_lexeme(scope: &str) -> String {
    crate::text::query::lexeme(scope)
}

impl PgStore {
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
        let Some(query) = query else {
            // $1, $2 and $6 as in the search; only the tags and the scope are used.
            let rows: Vec<NoteRow> = sqlx::query_as(&format!(
                "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = $3 AND trashed_at IS NULL \
                 AND $1::text IS NULL AND $2::text IS NULL {tagged} \
                 ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5"
            ))
            .bind(None::<String>)
            .bind(None::<String>)
            .bind(scope)
            .bind(i64::from(limit))
            .bind(i64::from(offset))
            .bind(tags)
            .fetch_all(&self.reader)
            .await?;
            return Ok(rows.into_iter().map(Note::from).collect());
        };
        // The title weighs ten times the body and the bigrams; the rank is divided by
        // 1 + log(length) so a long note does not win by its length alone (as bm25 does on
        // SQLite); ties go to the newer note.
        let sql = search_sql_with(tagged);
        let mut search = sqlx::query_as::<_, NoteRow>(&sql)
            .bind(query.to_tsquery())
            .bind(scope_lexeme(scope))
            .bind(scope)
            .bind(i64::from(limit))
            .bind(i64::from(offset));
        if !tags.is_empty() {
            search = search.bind(tags);
        }
        let rows = search.fetch_all(&self.reader).await?;
        Ok(rows.into_iter().map(Note::from).collect())
    }
}

/// The three parts of a note's search document (see `SEARCH_DOCUMENT`).
pub(super) fn search_parts(note: &Note) -> (String, String, String) {
    search_parts_of(&note.title, &note.body)
}

pub(super) fn search_parts_of(title: &str, body: &str) -> (String, String, String) {
    (
        document::words(title),
        document::words(body),
        cjk::bigrams(&format!("{title}\n{body}")),
    )
}
