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
/// [`scope_lexeme`], `$3` the scope, `$4` and `$5` the page's limit and offset, then the
/// tags (`$6`, when some are asked for) and last what the rank counts
/// (`SearchQuery::to_rank_tsquery`: `$6` or `$7`, see [`rank_parameter`]).
///
/// The query is a subquery the planner does not look into (`OFFSET 0`): with the word in
/// sight, its statistics (how many notes hold it, anyone's) would choose the plan, and a
/// word other people's notes hold often would be answered by a sequential scan over
/// everyone's notes, a rare one by the index: the time would tell which. Without it,
/// every search takes the scoped index.
pub fn search_sql() -> String {
    search_sql_with("")
}

/// The number of the parameter holding what the rank counts: the last one, after the
/// tags when some are asked for.
fn rank_parameter(tagged: &str) -> usize {
    if tagged.is_empty() { 6 } else { 7 }
}

/// Keeps the notes that carry every tag of the array `$6`, or a tag nested under it
/// (`#work` asks for `work` and `work/…`). With no tags asked for it is left out.
const CARRIES_EVERY_TAG: &str = "AND NOT EXISTS (SELECT 1 FROM unnest($6::text[]) AS w(tag) \
     WHERE NOT EXISTS (SELECT 1 FROM note_tags t WHERE t.note_id = notes.id \
     AND (t.tag = w.tag OR left(t.tag, length(w.tag) + 1) = w.tag || '/')))";

fn search_sql_with(tagged: &str) -> String {
    let ranked = ranked_query(rank_parameter(tagged));
    format!(
        "SELECT {NOTE_COLUMNS} FROM notes, {ranked} \
         WHERE scope = $3 AND trashed_at IS NULL AND {SEARCH_MATCH} {tagged} \
         ORDER BY {RANK} DESC, created_at DESC, id \
         LIMIT $4 OFFSET $5"
    )
}

/// The parsed query (`$1`), as a subquery the planner does not look into (see
/// [`search_sql`]).
const QUERY: &str = "(SELECT to_tsquery('simple', $1) AS q OFFSET 0) AS query";

/// The parsed query (`$1`) and what its rank counts (`$rank`), as [`QUERY`].
fn ranked_query(rank: usize) -> String {
    format!(
        "(SELECT to_tsquery('simple', $1) AS q, to_tsquery('simple', ${rank}) AS counted \
         OFFSET 0) AS query"
    )
}

/// A match's rank: the query's included words (any of them, `counted`:
/// `SearchQuery::to_rank_tsquery`), each scored by its best-weighted occurrence and less
/// and less for each further one, the title weighing ten times the body and the bigrams;
/// divided by 1 + log(length), so a long note does not win by its length alone. So a
/// word in the title outweighs any number of it in the body; bm25 on SQLite adds the
/// occurrences up (ten in the body count about as one in the title) and weighs rare
/// words more (no such weight here). Not `ts_rank_cd` (cover density: how close the
/// words stand), which took four to six times as long per ranked note for a query of two
/// words or an exclusion (5,000 of the benchmark's notes: 16–20 ms against 3–4 ms), and
/// a broad search ranks up to [`RANKED_MATCHES`] of them. A phrase still asks for its
/// words next to each other: that is the match, not the rank.
const RANK: &str = "ts_rank('{0.1, 0.1, 0.1, 1.0}', search, counted, 1)";

/// How many of a search's matches are ranked at most, as on SQLite
/// (`sqlite::search::RANKED_MATCHES`): past this many, a query is too broad to read
/// through, and the newest notes are the likelier ones.
pub const RANKED_MATCHES: i64 = 5_000;

/// How many of the person's newest notes a broad search (one whose words more notes
/// hold than are ranked) looks through for its matches. The index cannot give matches in
/// order of age, so they are found by reading the notes newest first; this bounds that
/// read whatever the query (a word in 5 % of 100,000 notes finds about 500 here).
pub const BROAD_WINDOW: i64 = 10_000;

/// How many of the person's notes hold the query's words — its candidates
/// (`SearchQuery::to_candidate_tsquery`, bound as `$1`), at most `$4` (the cap plus one;
/// `$5` zero; `$2`, `$3` and `$6` as in the search). The scoped index answers these words
/// without reading a note to recheck a phrase or an exclusion, so this reads at most `$4`
/// notes, whatever the query.
fn candidates_sql(tagged: &str) -> String {
    format!(
        "SELECT count(*) FROM (SELECT 1 FROM notes, {QUERY} \
         WHERE scope = $3 AND trashed_at IS NULL AND {SEARCH_MATCH} {tagged} \
         LIMIT $4 OFFSET $5) AS found"
    )
}

/// A broad search: the newest [`RANKED_MATCHES`] matches (at most) among the person's newest
/// [`BROAD_WINDOW`] notes (pinned ones first, as the list orders them: read in the
/// order of `notes_live`), ranked; the parameters as in the search.
fn broad_search_sql(tagged: &str) -> String {
    let ranked = ranked_query(rank_parameter(tagged));
    format!(
        "SELECT {NOTE_COLUMNS} FROM ( \
             SELECT notes.* FROM ( \
                 SELECT * FROM notes WHERE scope = $3 AND trashed_at IS NULL \
                 ORDER BY pinned DESC, created_at DESC, id DESC LIMIT {BROAD_WINDOW} \
             ) AS notes, {QUERY} \
             WHERE {SEARCH_MATCH} {tagged} \
             ORDER BY pinned DESC, created_at DESC, id DESC LIMIT {RANKED_MATCHES} \
         ) AS notes, {ranked} \
         ORDER BY {RANK} DESC, created_at DESC, id \
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
            // Only tags (the search module asks without words only then). $1, $2 and $6 as
            // in the search; $7-$8 the first tag: its notes are read by the ids of its
            // range of the tag index (the tag and every `tag/…`), not by checking every
            // live note of the person.
            let Some(first) = tags.first() else {
                return Ok(Vec::new());
            };
            let nested = format!("{first}/");
            let rows: Vec<NoteRow> = sqlx::query_as(&format!(
                "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = $3 AND trashed_at IS NULL \
                 AND $1::text IS NULL AND $2::text IS NULL \
                 AND id IN (SELECT note_id FROM note_tags WHERE scope = $3 \
                 AND tag >= $7 AND tag < $7 || '0' AND (tag = $7 OR left(tag, $8) = $7 || '/')) \
                 {tagged} ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5"
            ))
            .bind(None::<String>)
            .bind(None::<String>)
            .bind(scope)
            .bind(i64::from(limit))
            .bind(i64::from(offset))
            .bind(tags)
            .bind(first)
            .bind(nested.chars().count() as i32)
            .fetch_all(&self.reader)
            .await?;
            return Ok(rows.into_iter().map(Note::from).collect());
        };
        // A query whose words few notes hold ranks every match among them, through the
        // index; one whose words more notes hold than are ranked ranks the newest matches
        // (as SQLite does). Telling which reads at most that many notes: a rare word
        // costs what its few notes cost, a common one (or a phrase of common words, whose
        // every candidate would be read to check the order) never what all would.
        let broad = self
            .count_candidates(&candidates_sql(tagged), scope, query, tags)
            .await?
            > RANKED_MATCHES;
        let sql = if broad {
            broad_search_sql(tagged)
        } else {
            search_sql_with(tagged)
        };
        let mut search = sqlx::query_as::<_, NoteRow>(&sql)
            .bind(query.to_tsquery())
            .bind(scope_lexeme(scope))
            .bind(scope)
            .bind(i64::from(limit))
            .bind(i64::from(offset));
        if !tags.is_empty() {
            search = search.bind(tags);
        }
        let rows = search
            .bind(query.to_rank_tsquery())
            .fetch_all(&self.reader)
            .await?;
        Ok(rows.into_iter().map(Note::from).collect())
    }
}

impl PgStore {
    /// How many candidates the count `sql` finds (at most the cap plus one).
    async fn count_candidates(
        &self,
        sql: &str,
        scope: &str,
        query: &SearchQuery,
        tags: &[String],
    ) -> Result<i64, StorageError> {
        let mut count = sqlx::query_scalar::<_, i64>(sql)
            .bind(query.to_candidate_tsquery())
            .bind(scope_lexeme(scope))
            .bind(scope)
            .bind(RANKED_MATCHES + 1)
            .bind(0_i64);
        if !tags.is_empty() {
            count = count.bind(tags);
        }
        Ok(count.fetch_one(&self.reader).await?)
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
