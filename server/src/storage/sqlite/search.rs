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
            let sql = tags_only_sql();
            let rows: Vec<NoteRow> = range
                .bound(scope, sqlx::query_as(&sql))
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
        // person's live notes (its one token per note adds one to every length bm25
        // compares).
        let rows: Vec<NoteRow> = if tags.is_empty() {
            let sql = words_search_sql();
            words_search(&sql, search_match(scope, query), scope, limit, offset)
                .fetch_all(&self.reader)
                .await?
        } else {
            sqlx::query_as(&joined_search_sql(tagged))
                .bind(search_match(scope, query))
                .bind(scope)
                .bind(&wanted)
                .bind(RANKED_MATCHES)
                .bind(i64::from(limit))
                .bind(i64::from(offset))
                .fetch_all(&self.reader)
                .await?
        };
        Ok(rows.into_iter().map(Note::from).collect())
    }
}

/// A search by words alone: the newest [`RANKED_MATCHES`] of the full-text match, which
/// holds only the person's live notes (their scope token: a note in the trash holds
/// another, see `search_match`), scored (bm25's score, by [`RANK`]: `rank.rs`, which
/// does not walk the scope token's rows) without reading their rows; then only the notes
/// that can be on the page are read: those scored no worse than the page's last place
/// (the `offset + limit`-th best score, bound third), ties at it included, sorted by
/// score, age and id as every search is. So a word in 5,000 notes reads about 21 notes'
/// rows, not 5,000 (`query_plans.rs` checks the plan, and the tests below that the pages
/// are the checked search's, ties included). The scope and the trash are checked again
/// on the notes read, so a fault in the index could only leave a note out. (`CROSS
/// JOIN` and `+n.scope` keep SQLite's planner, which has no statistics here, from
/// walking every live note of the person by `notes_live` and looking each up in `found`:
/// it chose that, 22 ms of CPU a search at 100,000 notes against 13 before the change.)
///
/// Binds: the match, [`RANKED_MATCHES`], `offset + limit - 1`, the scope, the limit,
/// the offset.
pub(super) fn words_search_sql() -> String {
    format!(
        "WITH found AS MATERIALIZED ( \
             SELECT rowid AS found, {RANK}(notes_fts, 10.0, 1.0, 1.0, 0.0) AS score \
             FROM notes_fts WHERE notes_fts MATCH ? ORDER BY rowid DESC LIMIT ? \
         ) \
         SELECT {} FROM found m CROSS JOIN notes n ON n.rowid = m.found \
         WHERE coalesce(m.score <= (SELECT score FROM found ORDER BY score LIMIT 1 OFFSET ?), 1) \
             AND +n.scope = ? AND n.trashed_at IS NULL \
         ORDER BY m.score, n.created_at DESC, n.id LIMIT ? OFFSET ?",
        prefixed("n", NOTE_COLUMNS),
    )
}

/// [`words_search_sql`] with its parameters: the match, the person's scope, the page.
fn words_search<'q>(
    sql: &'q str,
    matched: String,
    scope: &'q str,
    limit: u32,
    offset: u32,
) -> sqlx::query::QueryAs<'q, sqlx::Sqlite, NoteRow, sqlx::sqlite::SqliteArguments<'q>> {
    sqlx::query_as(sql)
        .bind(matched)
        .bind(RANKED_MATCHES)
        // The page's last place, counted from 0.
        .bind(i64::from(offset) + i64::from(limit.max(1)) - 1)
        .bind(scope)
        .bind(i64::from(limit))
        .bind(i64::from(offset))
}

/// A search by words and tags (`tagged`, the tags' filter; or nothing, as the reference
/// the tests hold [`words_search_sql`] to): the newest [`RANKED_MATCHES`] of the person's
/// live matches that carry the tags, each match's row read to check them, scored as
/// above, sorted, and only the page asked for read whole. The check of each match's row
/// takes its sort keys (`created_at`, `id`) too, so the sort needs no second read of
/// 5,000 rows, and only the page's notes are joined again for their columns.
///
/// Binds: the match, the scope, the tags (with `tagged`), [`RANKED_MATCHES`], the limit,
/// the offset.
pub(super) fn joined_search_sql(tagged: &str) -> String {
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
/// has the figures). The token is that of a live note (`s` and the scope's bytes in hex;
/// a note in the trash holds `t` and the same, as the generated column `search_scope`
/// says), so the match holds the person's live notes only. The query's own terms are all
/// on `title`, `body` or `cjk`, so nothing typed can match a scope token.
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

#[cfg(test)]
mod tests {
    use sqlx::{Connection, SqliteConnection};

    use super::*;
    use crate::text::query::parse;

    /// A migrated database in `dir` (its store, for the reads) and a connection of the
    /// test's own for writing notes as the storage's statements would leave them.
    async fn database(dir: &tempfile::TempDir) -> (SqliteStore, SqliteConnection) {
        let url = format!("sqlite://{}", dir.path().join("search.db").display());
        let store = SqliteStore::open(&url, std::time::Duration::from_secs(5), 16, 0, None)
            .await
            .unwrap();
        let writer = SqliteConnection::connect(&url).await.unwrap();
        (store, writer)
    }

    /// A note of `scope` created at `created_at` (no CJK, no tags: as the storage writes
    /// such a note, so the server's start-up fills in nothing).
    async fn add(
        writer: &mut SqliteConnection,
        scope: &str,
        id: &str,
        body: &str,
        created_at: &str,
    ) {
        sqlx::query(
            "INSERT INTO notes (id, scope, idempotency_key, request_fingerprint, title, body, \
             written_at, created_at, updated_at, cjk, tags) \
             VALUES (?, ?, ?, 'fp', ?, ?, ?, ?, ?, '', '')",
        )
        .bind(id)
        .bind(scope)
        .bind(id)
        .bind(body.split(' ').next().unwrap_or_default())
        .bind(body)
        .bind(created_at)
        .bind(created_at)
        .bind(created_at)
        .execute(&mut *writer)
        .await
        .unwrap();
    }

    async fn set_trash(writer: &mut SqliteConnection, id: &str, trashed: bool) {
        sqlx::query("UPDATE notes SET trashed_at = ? WHERE id = ?")
            .bind(trashed.then_some("2026-12-06T00:00:00.000Z"))
            .bind(id)
            .execute(&mut *writer)
            .await
            .unwrap();
    }

    /// The ids of a page of `q` by `words_search_sql`, and by the checked search
    /// (`joined_search_sql` without tags) as the reference.
    async fn pages(
        store: &SqliteStore,
        scope: &str,
        q: &str,
        limit: u32,
        offset: u32,
    ) -> (Vec<String>, Vec<String>) {
        let matched = search_match(scope, &parse(q).unwrap());
        let sql = words_search_sql();
        let words: Vec<NoteRow> = words_search(&sql, matched.clone(), scope, limit, offset)
            .fetch_all(&store.reader)
            .await
            .unwrap();
        let checked: Vec<NoteRow> = sqlx::query_as(&joined_search_sql(""))
            .bind(&matched)
            .bind(scope)
            .bind(RANKED_MATCHES)
            .bind(i64::from(limit))
            .bind(i64::from(offset))
            .fetch_all(&store.reader)
            .await
            .unwrap();
        let ids = |rows: Vec<NoteRow>| rows.into_iter().map(|r| Note::from(r).id).collect();
        (ids(words), ids(checked))
    }

    /// FTS5's own check of the index against the notes (their values as indexed).
    async fn index_is_whole(writer: &mut SqliteConnection) {
        sqlx::query("INSERT INTO notes_fts (notes_fts, rank) VALUES ('integrity-check', 1)")
            .execute(&mut *writer)
            .await
            .expect("the index holds each note as the notes table says");
    }

    #[tokio::test]
    async fn the_words_search_gives_the_checked_searchs_every_page_ties_and_trash_included() {
        let dir = tempfile::tempdir().unwrap();
        let (store, mut writer) = database(&dir).await;
        // More of ann's live notes than are ranked (6,000, 858 of them then trashed), in 43
        // lengths, so in large ties (the same score: their order is their age, which is not
        // the order they were written in; `every_small_page_…` below has a score for each
        // note); one in seven in the trash (some among the newest, which the cap counts
        // from) and one of those restored; bo's notes hold the same words.
        const NOTES: usize = 6_000;
        let body = |i: usize| {
            let i = if i % 10 == 9 { i - 1 } else { i };
            let mut body = format!("milk{}", " filler".repeat(i % 41));
            if i % 3 == 0 {
                body.push_str(" tea");
            }
            if i % 5 == 0 {
                body.push_str(" bread");
            }
            body
        };
        sqlx::query("BEGIN").execute(&mut writer).await.unwrap();
        for i in 0..NOTES {
            let created = format!(
                "2026-{:02}-{:02}T00:00:00.000Z",
                1 + i % 12,
                1 + (i * 7) % 28
            );
            add(&mut writer, "ann", &format!("a{i:05}"), &body(i), &created).await;
            if i % 20 == 0 {
                add(&mut writer, "bo", &format!("b{i:05}"), &body(i), &created).await;
            }
            if i % 7 == 0 {
                set_trash(&mut writer, &format!("a{i:05}"), true).await;
            }
        }
        sqlx::query("COMMIT").execute(&mut writer).await.unwrap();
        set_trash(&mut writer, "a05999", false).await;
        index_is_whole(&mut writer).await;
        for q in [
            "milk",
            "tea",
            "milk tea",
            "\"milk filler\"",
            "milk -bread",
            "bread or tea",
        ] {
            for (limit, offset) in [
                (21, 0),
                (3, 0),
                (3, 3),
                (5, 7),
                (21, 21),
                (50, 40),
                (21, 4_990),
            ] {
                let (words, checked) = pages(&store, "ann", q, limit, offset).await;
                assert_eq!(words, checked, "{q:?}, {limit} from {offset}");
                assert!(
                    words.iter().all(|id| id.starts_with('a')),
                    "{q:?}: {words:?}"
                );
                assert!(
                    words.iter().all(|id| id != "a05992"),
                    "a note in the trash is left out"
                );
            }
        }
        let (all, _) = pages(&store, "ann", "milk", 6_000, 0).await;
        assert_eq!(
            all.len(),
            RANKED_MATCHES as usize,
            "the newest live matches, as many as are ranked"
        );
        assert!(
            all.contains(&"a05999".to_owned()),
            "the restored note is found again"
        );
        store.close().await;
    }

    #[tokio::test]
    async fn every_small_page_of_notes_scored_apart_is_the_checked_searchs() {
        // Each note a score of its own (its length), every tenth the same text as the one
        // before, every seventh in the trash: a page whose last place were counted one
        // short would come out short or wrong here (85 live notes, every page full).
        let dir = tempfile::tempdir().unwrap();
        let (store, mut writer) = database(&dir).await;
        for i in 0..100 {
            let fillers = if i % 10 == 9 { i - 1 } else { i };
            let body = format!("milk{}", " filler".repeat(fillers));
            let created = format!("2026-12-{:02}T00:00:00.000Z", 1 + (i * 7) % 28);
            add(&mut writer, "ann", &format!("a{i:03}"), &body, &created).await;
            if i % 7 == 0 {
                set_trash(&mut writer, &format!("a{i:03}"), true).await;
            }
        }
        for limit in 1..=6 {
            for offset in 0..=40 {
                let (words, checked) = pages(&store, "ann", "milk", limit, offset).await;
                assert_eq!(words, checked, "{limit} from {offset}");
                assert_eq!(words.len(), limit as usize, "{limit} from {offset}");
            }
        }
        store.close().await;
    }

    /// Ann's notes `a1` and `a2`, both holding "lighthouse", `a2` the newer.
    async fn two_lighthouses(writer: &mut SqliteConnection) {
        for (id, created_at) in [("a1", "2026-12-01"), ("a2", "2026-12-02")] {
            add(
                writer,
                "ann",
                id,
                "lighthouse keeper",
                &format!("{created_at}T00:00:00.000Z"),
            )
            .await;
        }
    }

    /// The ids of ann's notes the full-text match of `q` yields (before any row is read).
    async fn matched(writer: &mut SqliteConnection, q: &str) -> Vec<String> {
        sqlx::query_scalar(
            "SELECT n.id FROM notes_fts JOIN notes n ON n.rowid = notes_fts.rowid \
             WHERE notes_fts MATCH ? ORDER BY n.id",
        )
        .bind(search_match("ann", &parse(q).unwrap()))
        .fetch_all(writer)
        .await
        .unwrap()
    }

    #[tokio::test]
    async fn a_note_leaves_the_persons_match_when_trashed_and_comes_back_when_restored() {
        let dir = tempfile::tempdir().unwrap();
        let (store, mut writer) = database(&dir).await;
        two_lighthouses(&mut writer).await;
        assert_eq!(matched(&mut writer, "lighthouse").await, ["a1", "a2"]);
        set_trash(&mut writer, "a1", true).await;
        assert_eq!(
            matched(&mut writer, "lighthouse").await,
            ["a2"],
            "the match itself leaves it out"
        );
        set_trash(&mut writer, "a1", false).await;
        assert_eq!(matched(&mut writer, "lighthouse").await, ["a1", "a2"]);
        set_trash(&mut writer, "a2", true).await;
        sqlx::query("DELETE FROM notes WHERE id = 'a2'")
            .execute(&mut writer)
            .await
            .unwrap();
        index_is_whole(&mut writer).await;
        assert_eq!(matched(&mut writer, "lighthouse").await, ["a1"]);
        store.close().await;
    }

    #[tokio::test]
    async fn notes_in_the_trash_before_the_upgrade_leave_the_match_and_the_index_stays_whole() {
        // The migrations before this one, then notes (one of them in the trash), then the
        // store opened: it migrates the rest.
        const TRASH_OUT_OF_SCOPE: i64 = 20261230000001;
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("search.db").display());
        let mut writer = super::super::upgrades::migrated_before(&url, TRASH_OUT_OF_SCOPE).await;
        two_lighthouses(&mut writer).await;
        set_trash(&mut writer, "a2", true).await;
        let store = super::super::upgrades::opened(&url).await;
        assert_eq!(
            matched(&mut writer, "lighthouse").await,
            ["a1"],
            "the note in the trash left the match itself"
        );
        let in_trash: i64 =
            sqlx::query_scalar("SELECT count(*) FROM notes_fts WHERE notes_fts MATCH ?")
                .bind(format!("search_scope: \"t{}\"", hex::encode("ann")))
                .fetch_one(&mut writer)
                .await
                .unwrap();
        assert_eq!(in_trash, 1);
        index_is_whole(&mut writer).await;
        store.close().await;
    }
}
