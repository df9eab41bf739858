//! The plans SQLite makes for the statements that read a few of a person's rows among
//! many: each must find them by a key or a short range of an index. SQLite has no
//! statistics here (no `ANALYZE`), and with a plain `scope = ?` its planner has chosen to
//! walk every note (or tag, or file reference) of the person instead — fine in a test,
//! 100-170 ms at 100,000 notes. The plans are the same on an empty database, so these
//! tests need no data.

use super::SqliteStore;
use super::file_refs::{FILES_OF_NOTE_SEEN, REFS_OF_NOTE_DROPPED};
use super::tag_range::TAGGED_IDS;

/// `EXPLAIN QUERY PLAN` of `sql` (its `binds` parameters bound to `"x"`) on a new,
/// migrated database: its lines joined with "; ".
async fn plan_of(sql: &str, binds: usize) -> String {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("plan.db").display());
    let store = SqliteStore::open(&url, std::time::Duration::from_secs(5), 16, 0, None)
        .await
        .unwrap();
    let explain = format!("EXPLAIN QUERY PLAN {sql}");
    let mut query = sqlx::query_as::<_, (i64, i64, i64, String)>(&explain);
    for _ in 0..binds {
        query = query.bind("x");
    }
    let lines = query.fetch_all(&store.reader).await.unwrap();
    store.close().await;
    lines
        .into_iter()
        .map(|(_, _, _, line)| line)
        .collect::<Vec<_>>()
        .join("; ")
}

const NOTE_BY_ID: &str = "SEARCH notes USING INDEX sqlite_autoindex_notes_1 (id=?)";
const TAG_RANGE: &str = "note_tags USING INDEX note_tags_scope_tag (scope=? AND tag>? AND tag<?)";

#[tokio::test]
async fn a_feed_page_looks_its_notes_up_by_id_instead_of_walking_all_the_persons_notes() {
    let plan = plan_of(&super::changes::notes_by_id(), 2).await;
    assert!(plan.contains(NOTE_BY_ID), "{plan}");
    assert!(!plan.contains("(scope=?)"), "{plan}");
}

#[tokio::test]
async fn a_tag_rename_reads_the_tags_range_and_its_notes_by_id() {
    // The notes it rewrites (read before its write), and their versions inside it.
    for what in ["id, version", crate::storage::rows::NOTE_COLUMNS] {
        let plan = plan_of(&super::tags::tagged_sql(what), 7).await;
        assert!(plan.contains(NOTE_BY_ID), "{plan}");
        assert!(plan.contains(TAG_RANGE), "{plan}");
    }
}

#[tokio::test]
async fn a_search_of_tags_only_reads_the_first_tags_notes_by_id() {
    let plan = plan_of(&super::search::tags_only_sql(), 10).await;
    assert!(
        plan.contains("SEARCH n USING INDEX sqlite_autoindex_notes_1 (id=?)"),
        "{plan}"
    );
    assert!(plan.contains(TAG_RANGE), "{plan}");
}

#[tokio::test]
async fn a_tags_list_reads_only_that_tags_range_of_the_tag_index() {
    let tagged = format!("AND id IN ({TAGGED_IDS})");
    let plan = plan_of(&super::notes::list_notes_sql("", &tagged), 8).await;
    assert!(plan.contains(TAG_RANGE), "{plan}");
}

#[tokio::test]
async fn a_delete_for_good_finds_the_notes_file_references_by_the_note() {
    for (sql, binds) in [(FILES_OF_NOTE_SEEN, 4), (REFS_OF_NOTE_DROPPED, 2)] {
        let plan = plan_of(sql, binds).await;
        assert!(
            plan.contains("file_refs_by_note (note_id=?)"),
            "{sql}: {plan}"
        );
    }
}

#[tokio::test]
async fn the_tag_counts_read_the_trash_once_instead_of_each_tagged_notes_row() {
    let plan = plan_of(super::tags::TAG_COUNTS, 2).await;
    assert!(
        plan.contains("SEARCH t USING INDEX note_tags_scope_tag (scope=?)"),
        "{plan}"
    );
    assert!(
        plan.contains("LIST SUBQUERY 1; SEARCH notes USING COVERING INDEX notes_trash (scope=?"),
        "{plan}"
    );
    assert!(!plan.contains("sqlite_autoindex_notes_1"), "{plan}");
    assert!(!plan.contains("TEMP B-TREE FOR GROUP BY"), "{plan}");
}

#[tokio::test]
async fn a_search_by_words_sorts_its_ranked_matches_before_reading_the_pages_notes_whole() {
    // FTS5 gives the matches newest first (no sort of its own); they are sorted by score
    // inside `m` (a temp b-tree before `m` is scanned), so only the page's rows are read
    // again for their columns, then put back in order (the second temp b-tree). Before,
    // every ranked match was read again and sorted after (one temp b-tree, after).
    use super::search::{CARRIES_EVERY_TAG, joined_search_sql};
    for (tagged, binds) in [("", 5), (CARRIES_EVERY_TAG, 6)] {
        let plan = plan_of(&joined_search_sql(tagged), binds).await;
        let page_scanned = plan.find("SCAN m").unwrap_or_else(|| panic!("{plan}"));
        let (before, after) = plan.split_at(page_scanned);
        assert_eq!(
            before.matches("USE TEMP B-TREE FOR ORDER BY").count(),
            1,
            "{plan}"
        );
        assert_eq!(
            after.matches("USE TEMP B-TREE FOR ORDER BY").count(),
            1,
            "{plan}"
        );
        assert!(
            after.contains("SEARCH n USING INTEGER PRIMARY KEY (rowid=?)"),
            "{plan}"
        );
    }
}

#[tokio::test]
async fn a_search_by_words_alone_scores_its_matches_without_reading_a_notes_row() {
    // The matches are scored from the index alone (FTS5 walks it newest first, no sort),
    // kept in `found`; only the notes that can be on the page are then looked up by rowid.
    // Before, each of up to 5,000 matches was looked up in `notes` to check its trash.
    let plan = plan_of(&super::search::words_search_sql(), 6).await;
    let page_read = plan.find("SCAN m").unwrap_or_else(|| panic!("{plan}"));
    let (found, page) = plan.split_at(page_read);
    assert!(
        found.contains("SCAN notes_fts VIRTUAL TABLE INDEX"),
        "{plan}"
    );
    assert!(
        !found.contains("notes USING") && !found.contains(" n "),
        "{plan}"
    );
    assert!(
        !plan.contains("notes_live"),
        "every live note walked: {plan}"
    );
    // The index is searched once: the page's last place is read from `found`.
    assert_eq!(plan.matches("VIRTUAL TABLE").count(), 1, "{plan}");
    assert_eq!(plan.matches("MATERIALIZE").count(), 1, "{plan}");
    assert_eq!(
        page.matches("SEARCH n USING INTEGER PRIMARY KEY (rowid=?)")
            .count(),
        1,
        "{plan}"
    );
}
