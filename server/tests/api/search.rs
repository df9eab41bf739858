//! Search: a relevance corpus with expected top results (accented, CJK and HTML-bearing
//! notes among 200+), hostile queries that must never error, snippets that can never
//! carry markup but `<mark>`, and notes in the trash left out.

use app::api::SearchPage;

use crate::helpers::{TestApp, spawn_app};
use crate::naughty_strings::naughty_strings;
use crate::test_db::Backend;

/// Words for filler notes, none of which a target query uses.
const FILLER_WORDS: &[&str] = &[
    "window", "river", "lamp", "pencil", "orange", "violin", "mountain", "blanket", "ladder",
    "candle", "meadow", "puzzle", "helmet", "tunnel", "anchor", "parrot", "velvet", "glacier",
    "saddle", "marble", "harbor", "lantern", "thimble", "walnut", "falcon", "compass", "pebble",
];

async fn search(app: &TestApp, q: &str) -> SearchPage {
    let response = app
        .client
        .get(app.url("/api/search"))
        .query(&[("q", q)])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "query {q:?}");
    response.json().await.unwrap()
}

fn titles(page: &SearchPage) -> Vec<String> {
    page.results.iter().map(|r| r.note.title.clone()).collect()
}

/// 220 filler notes and the targets the queries below must find.
async fn corpus() -> TestApp {
    let app = spawn_app().await;
    for n in 0..220 {
        let words: Vec<&str> = (0..12)
            .map(|i| FILLER_WORDS[(n * 7 + i * 3) % FILLER_WORDS.len()])
            .collect();
        app.create(&format!("Filler note {n}"), &words.join(" "))
            .await;
    }
    let targets = [
        (
            "Sourdough starter schedule",
            "Feed the starter twice a day with rye flour.",
        ),
        ("Garden", "Plant tomatoes in May; water the beds."),
        ("Shopping", "Buy soil for the garden, milk and eggs."),
        ("Crème brûlée recipe", "Caramelise the sugar with a torch."),
        ("Morning routine", "Walk to the café before work."),
        ("東京出張メモ", "新幹線の時間を確認する。ホテルは品川。"),
        ("회의 메모", "다음 주 월요일 회의 준비"),
        (
            "Quarterly report draft",
            "the quick brown fox jumps over the report",
        ),
        ("Word salad", "brown quick fox, in another order"),
        ("Apple pie", "apples, butter and cinnamon"),
        ("Apple crumble", "apples, oats and butter"),
        ("Kayak trip", "Paddle along the coast."),
        ("Canoe rental", "Ask about prices for two."),
        (
            "<script>alert(1)</script> notes",
            "<b>bold</b> & <i>italics</i> about htmltesting </mark><img src=x onerror=alert(1)>",
        ),
        (
            "Tax return 2026",
            "Collect the receipts and the bank statements.",
        ),
        ("Tax ideas", "Ask the accountant about deductions."),
    ];
    for (title, body) in targets {
        app.create(title, body).await;
    }
    let zebra = app.create("Zebra facts", "Stripes are unique.").await;
    assert_eq!(
        app.delete_note(&zebra.id, "trash-zebra", false)
            .await
            .status(),
        200
    );
    app
}

#[tokio::test]
async fn the_relevance_corpus_finds_what_each_query_is_for() {
    let app = corpus().await;
    let first = |page: &SearchPage| titles(page).first().cloned().unwrap_or_default();

    assert_eq!(
        first(&search(&app, "sourdough").await),
        "Sourdough starter schedule"
    );
    // The title weighs more than the body.
    assert_eq!(
        titles(&search(&app, "garden").await),
        ["Garden", "Shopping"]
    );
    // Accents do not matter, either way round.
    assert_eq!(
        first(&search(&app, "creme brulee").await),
        "Crème brûlée recipe"
    );
    assert_eq!(
        first(&search(&app, "caramelise").await),
        "Crème brûlée recipe"
    );
    assert_eq!(first(&search(&app, "cafe").await), "Morning routine");
    assert_eq!(first(&search(&app, "brûlée").await), "Crème brûlée recipe");
    // Text without spaces between words.
    assert_eq!(first(&search(&app, "東京").await), "東京出張メモ");
    assert_eq!(first(&search(&app, "新幹線").await), "東京出張メモ");
    assert_eq!(first(&search(&app, "品川").await), "東京出張メモ");
    assert_eq!(first(&search(&app, "회의").await), "회의 메모");
    // Phrases, exclusions, alternatives, all words.
    assert_eq!(
        titles(&search(&app, "\"quick brown\"").await),
        ["Quarterly report draft"]
    );
    assert_eq!(titles(&search(&app, "apple -crumble").await), ["Apple pie"]);
    let either = titles(&search(&app, "kayak or canoe").await);
    assert_eq!(either.len(), 2, "{either:?}");
    assert!(
        either.contains(&"Kayak trip".to_owned()) && either.contains(&"Canoe rental".to_owned())
    );
    assert_eq!(
        titles(&search(&app, "tax receipts").await),
        ["Tax return 2026"]
    );
    // The trash is left out.
    assert!(search(&app, "zebra").await.results.is_empty());
    // Filler words find the filler notes, many of them: the corpus is real.
    assert!(search(&app, "lantern").await.results.len() >= 20);
}

#[tokio::test]
async fn an_exclusion_leaves_the_rank_to_the_words_asked_for_on_both_databases() {
    let app = spawn_app().await;
    // The word in the title of the older, longer note; only in the body of the newer,
    // shorter one. Ranked by every word of the query, an excluded word (which no match
    // holds) would leave both the same rank, and the shorter, newer note would come first.
    app.create(
        "Lighthouse keeper",
        "Evenings at the lighthouse, the long winter by the sea and the turning light.",
    )
    .await;
    app.create("Errands", "lighthouse").await;
    for q in [
        "lighthouse",
        "lighthouse -zebra",
        "lighthouse -\"blue whale\"",
    ] {
        assert_eq!(
            titles(&search(&app, q).await),
            ["Lighthouse keeper", "Errands"],
            "query {q:?}"
        );
    }
}

#[tokio::test]
async fn a_snippet_is_escaped_text_with_only_mark_as_markup() {
    let app = corpus().await;
    let page = search(&app, "htmltesting").await;
    let hit = &page.results[0];
    assert!(
        hit.snippet.contains("<mark>htmltesting</mark>"),
        "{}",
        hit.snippet
    );
    assert!(
        hit.snippet.contains("&lt;b&gt;bold&lt;/b&gt;"),
        "{}",
        hit.snippet
    );
    let without_marks = hit.snippet.replace("<mark>", "").replace("</mark>", "");
    assert!(
        !without_marks.contains('<'),
        "only <mark> may be markup: {}",
        hit.snippet
    );
    assert!(!hit.snippet.contains("<img"), "{}", hit.snippet);
    // A query without the accent marks the accented word as it is written.
    let accented = search(&app, "cafe").await;
    assert!(
        accented.results[0].snippet.contains("<mark>café</mark>"),
        "{}",
        accented.results[0].snippet
    );
}

#[tokio::test]
async fn hostile_queries_never_error() {
    let app = corpus().await;
    let long_words = "a ".repeat(5_000);
    let long_quotes = "\"".repeat(10_000);
    let hostile = [
        "\"",
        "\"\"",
        "*",
        "**",
        "NEAR(a b)",
        "-",
        "--",
        ":",
        "title:secret",
        "body:x",
        "(",
        ")",
        "((a",
        "a OR",
        "OR",
        "AND",
        "NOT a",
        "^a",
        "a+b",
        "a*",
        "'; DROP TABLE notes; --",
        "\u{0}",
        "🦀",
        "-\"",
        "\"unbalanced phrase",
        "{title}: x",
        "a NEAR b",
        "cjk: 東京",
        long_words.as_str(),
        long_quotes.as_str(),
        "e-mail",
        "it's",
        "東京tower",
        "-東京",
    ];
    for q in hostile {
        let response = app
            .client
            .get(app.url("/api/search"))
            .query(&[("q", q)])
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        assert!(
            status == 200 || status == 422,
            "query {:?} answered {status}",
            q.chars().take(40).collect::<String>()
        );
        if status == 422 {
            let problem: app::api::Problem = response.json().await.unwrap();
            assert_eq!(problem.slug(), "validation-failed");
        }
    }
    let no_query = app.get("/api/search").await;
    assert_eq!(no_query.status(), 422);
    assert_eq!(app.get("/api/search?q=%20%20").await.status(), 422);
}

#[tokio::test]
async fn search_results_page_on_with_a_cursor() {
    let app = corpus().await;
    let first: SearchPage = app
        .get("/api/search?q=lantern&limit=5")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(first.results.len(), 5);
    let cursor = first.next.clone().expect("more results");
    let second: SearchPage = app
        .get(&format!("/api/search?q=lantern&limit=5&cursor={cursor}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(second.results.len(), 5);
    assert!(
        second
            .results
            .iter()
            .all(|hit| !first.results.iter().any(|f| f.note.id == hit.note.id))
    );
    assert_eq!(
        app.get("/api/search?q=x&cursor=nonsense").await.status(),
        400
    );
}

#[tokio::test]
async fn an_edited_note_is_found_by_its_new_words_only() {
    let app = spawn_app().await;
    let note = app.create("Plan", "old words here").await;
    let response = app
        .patch_note(
            &note.id,
            "e1",
            &serde_json::json!({ "title": "Plan", "body": "fresh vocabulary", "base_version": 1, "written_at": "2026-11-30T06:00:00Z" }),
            &[],
        )
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(titles(&search(&app, "vocabulary").await), ["Plan"]);
    assert!(search(&app, "old").await.results.is_empty());
}

/// `GET /api/search?q=<q>`: the status, and the problem's slug when it is one.
async fn search_status(app: &TestApp, q: &str) -> (u16, Option<String>) {
    let response = app
        .client
        .get(app.url("/api/search"))
        .query(&[("q", q)])
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let slug = if status == 200 {
        None
    } else {
        let problem: app::api::Problem = response.json().await.unwrap();
        Some(problem.slug().to_owned())
    };
    (status, slug)
}

#[tokio::test]
async fn a_lone_combining_mark_is_answered_as_a_blank_query_and_never_with_a_500() {
    let app = spawn_app().await;
    app.create("Word", "a word with an iota subscript ᾳ").await;
    let blank = search_status(&app, "  ").await;
    assert_eq!(blank, (422, Some("validation-failed".to_owned())));
    // U+0345, the combining ypogegrammeni: a letter to Unicode, nothing once folded.
    let raw = app.get("/api/search?q=%CD%85").await;
    assert_eq!(raw.status(), 422, "a lone U+0345");
    for q in [
        "\u{345}",
        "\u{345} ",
        " \u{345}\u{301}",
        "\"\u{345}\"",
        "-\u{345}",
    ] {
        assert_eq!(search_status(&app, q).await, blank, "query {q:?}");
    }
    for q in [
        "word \u{345}",
        "\u{345} word",
        "\"word \u{345}\"",
        "word -\u{345}",
    ] {
        let (status, _) = search_status(&app, q).await;
        assert_eq!(status, 200, "query {q:?}");
    }
    assert_eq!(titles(&search(&app, "word \u{345}").await), ["Word"]);
}

#[tokio::test]
async fn every_naughty_string_searched_for_is_answered_without_a_server_error() {
    let app = spawn_app().await;
    let strings = naughty_strings();
    // Every other one in a note too (those a note takes), so the searches have
    // something to match against.
    for (n, text) in strings.iter().step_by(2).enumerate() {
        let note = serde_json::json!({ "title": format!("Naughty {n}"), "body": text, "written_at": "2026-11-30T05:00:00.000Z" });
        let status = app
            .post_note(Some(&format!("naughty-{n}")), &note)
            .await
            .status();
        assert!(
            status == 201 || status == 422,
            "note {text:?} answered {status}"
        );
    }
    for q in &strings {
        let (status, slug) = search_status(&app, q).await;
        assert!(
            status == 200 || (status == 422 && slug.as_deref() == Some("validation-failed")),
            "query {q:?} answered {status} {slug:?}"
        );
    }
}

/// How many notes the search's full-text match itself yields for `scope`, counted with
/// the store's own match, before any note's row is read (on SQLite the match holds the
/// person's live notes only; on PostgreSQL their notes in the trash too).
async fn matched_by_the_index(app: &TestApp, scope: &str, q: &str) -> i64 {
    use server::text::query::QuerySyntax;
    let query = server::text::query::parse(q).expect("a query");
    match app.db.backend {
        Backend::Sqlite => {
            sqlx::query_scalar("SELECT count(*) FROM notes_fts WHERE notes_fts MATCH $1")
                .bind(server::storage::sqlite::search::search_match(scope, &query))
                .fetch_one(&app.pool)
                .await
                .unwrap()
        }
        Backend::Postgres => sqlx::query_scalar(&format!(
            "SELECT count(*) FROM notes, to_tsquery('simple', $1) AS q WHERE {}",
            server::storage::postgres::search::SEARCH_MATCH
        ))
        .bind(query.to_tsquery())
        .bind(server::storage::postgres::search::scope_lexeme(scope))
        .fetch_one(&app.pool)
        .await
        .unwrap(),
    }
}

async fn user_id(app: &TestApp, username: &str) -> String {
    sqlx::query_scalar("SELECT id FROM users WHERE username = $1")
        .bind(username)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn the_full_text_match_of_one_persons_search_yields_none_of_another_persons_notes() {
    let app = spawn_app().await;
    for n in 0..30 {
        app.create(&format!("Needle {n}"), "a needle in the haystack")
            .await;
    }
    let bea = app.new_user("bea").await;
    let response = bea
        .post(app.url("/api/notes"))
        .header(app::api::IDEMPOTENCY_KEY_HEADER, "bea-1")
        .json(&serde_json::json!({ "title": "Hay", "body": "only haystack here", "written_at": "2026-11-30T05:00:00.000Z" }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    let admin = user_id(&app, crate::helpers::ADMIN).await;
    let bea_id = user_id(&app, "bea").await;
    assert_eq!(matched_by_the_index(&app, &admin, "needle").await, 30);
    // Bea's search for a word only the admin's notes hold: the match itself finds none
    // of them, so its time cannot tell how many the admin has.
    assert_eq!(matched_by_the_index(&app, &bea_id, "needle").await, 0);
    assert_eq!(matched_by_the_index(&app, &bea_id, "haystack").await, 1);
    assert_eq!(
        matched_by_the_index(&app, &bea_id, "needle or haystack -x").await,
        1
    );
}

#[tokio::test]
async fn a_search_document_folded_by_the_earlier_rule_is_made_again_at_start() {
    let app = spawn_app().await;
    if app.db.backend != Backend::Postgres {
        // FTS5 folds the text itself: SQLite keeps no document of the server's making.
        return;
    }
    let note = app.create("ΣΟΦΙΑΣ", "किताब").await;
    // The document as the earlier rule folded it (final sigma kept, spacing vowel signs
    // dropped), and the database as it was before the migration that lists such notes.
    sqlx::query(
        "UPDATE notes SET search = setweight(to_tsvector('simple', 'σοφιας'), 'A') || \
         setweight(to_tsvector('simple', 'कतब'), 'B') WHERE id = $1",
    )
    .bind(&note.id)
    .execute(&app.pool)
    .await
    .unwrap();
    sqlx::query("DROP TABLE IF EXISTS search_refold")
        .execute(&app.pool)
        .await
        .unwrap();
    sqlx::query("DELETE FROM _sqlx_migrations WHERE version = 20261205000002")
        .execute(&app.pool)
        .await
        .unwrap();
    // A server starting on that database migrates it and makes the document again.
    let replica = app.replica_with(|_| {}).await;
    for q in ["σοφιας", "ΣΟΦΙΑΣ", "किताब"] {
        let page: SearchPage = app
            .client
            .get(replica.url("/api/search"))
            .query(&[("q", q)])
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(titles(&page), ["ΣΟΦΙΑΣ"], "query {q:?}");
    }
}

/// Adds `count` notes to `scope` straight through SQL (the search index kept as the
/// store keeps it), each body holding `word`.
async fn add_notes(app: &TestApp, scope: &str, prefix: &str, word: &str, count: i64) {
    let insert = match app.db.backend {
        Backend::Sqlite => {
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $4) \
             INSERT INTO notes (id, scope, idempotency_key, request_fingerprint, title, body, \
             written_at, created_at, updated_at, cjk) \
             SELECT $2 || i, $1, $2 || i, 'f', 'Note ' || i, 'a ' || $3 || ' in a note ' || i, \
             '2026-11-30T05:00:00.000Z', printf('2026-11-30T05:00:00.%06dZ', i), \
             '2026-11-30T05:00:00.000Z', '' FROM n"
        }
        Backend::Postgres => {
            "INSERT INTO notes (id, scope, idempotency_key, request_fingerprint, title, body, \
             written_at, created_at, updated_at, search) \
             SELECT $2 || i, $1, $2 || i, 'f', 'Note ' || i, 'a ' || $3 || ' in a note ' || i, \
             '2026-11-30T05:00:00.000Z', '2026-11-30T05:00:00.' || lpad(i::text, 6, '0') || 'Z', \
             '2026-11-30T05:00:00.000Z', \
             setweight(to_tsvector('simple', 'note ' || i), 'A') || \
             setweight(to_tsvector('simple', 'a ' || $3 || ' in a note ' || i), 'B') \
             FROM generate_series(1, $4::bigint) AS i"
        }
    };
    sqlx::query(insert)
        .bind(scope)
        .bind(prefix)
        .bind(word)
        .bind(count)
        .execute(&app.pool)
        .await
        .unwrap();
    if app.db.backend == Backend::Postgres {
        sqlx::query("ANALYZE notes")
            .execute(&app.pool)
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn a_word_in_more_notes_than_are_ranked_ranks_the_newest_of_them_on_both_databases() {
    let app = spawn_app().await;
    let admin = user_id(&app, crate::helpers::ADMIN).await;
    // The oldest note holds the word in its title: among few matches it would be first.
    let old_title = match app.db.backend {
        Backend::Sqlite => {
            "INSERT INTO notes (id, scope, idempotency_key, request_fingerprint, title, body, \
             written_at, created_at, updated_at, cjk) VALUES ('old', $1, 'old', 'f', \
             'Common knowledge', 'from long ago', '2026-11-29T05:00:00.000Z', \
             '2026-11-29T05:00:00.000Z', '2026-11-29T05:00:00.000Z', '')"
        }
        Backend::Postgres => {
            "INSERT INTO notes (id, scope, idempotency_key, request_fingerprint, title, body, \
             written_at, created_at, updated_at, search) VALUES ('old', $1, 'old', 'f', \
             'Common knowledge', 'from long ago', '2026-11-29T05:00:00.000Z', \
             '2026-11-29T05:00:00.000Z', '2026-11-29T05:00:00.000Z', \
             setweight(to_tsvector('simple', 'common knowledge'), 'A') || \
             setweight(to_tsvector('simple', 'from long ago'), 'B'))"
        }
    };
    sqlx::query(old_title)
        .bind(&admin)
        .execute(&app.pool)
        .await
        .unwrap();
    let first = |page: &SearchPage| titles(page).first().cloned().unwrap_or_default();
    assert_eq!(first(&search(&app, "common").await), "Common knowledge");
    // Then more notes hold it (in their bodies) than a search ranks, and a new one holds
    // it in its title: the newest matches are ranked, and the oldest is not among them.
    add_notes(&app, &admin, "many-", "common", 5_100).await;
    app.create("Common ground", "written today").await;
    let page = search(&app, "common").await;
    assert_eq!(first(&page), "Common ground");
    assert!(
        !titles(&page).contains(&"Common knowledge".to_owned()),
        "{:?}",
        titles(&page)
    );
    // The same broad search asking for a tag the many notes and the new one carry (the
    // tags come before the rank among the query's parameters on PostgreSQL).
    sqlx::query(
        "INSERT INTO note_tags (scope, note_id, tag) SELECT scope, id, 'bulk' FROM notes \
         WHERE id LIKE 'many-%' OR title = 'Common ground'",
    )
    .execute(&app.pool)
    .await
    .unwrap();
    let tagged = search(&app, "common #bulk").await;
    assert_eq!(first(&tagged), "Common ground");
    assert_eq!(tagged.results.len(), page.results.len());
}

#[tokio::test]
async fn a_search_on_postgresql_is_planned_on_the_scoped_index_whatever_the_word() {
    let app = spawn_app().await;
    if app.db.backend != Backend::Postgres {
        // SQLite has no choice to make: the MATCH is always the FTS5 index's.
        return;
    }
    // Two people with half the notes each, one word in every note of the admin's: the
    // word's own statistics would make a sequential scan look cheaper for it, reading
    // everyone's notes, while a word nobody holds would take the index, and the time
    // would tell them apart.
    let admin = user_id(&app, crate::helpers::ADMIN).await;
    add_notes(&app, &admin, "admin-", "needle", 20_000).await;
    app.new_user("bea").await;
    let bea = user_id(&app, "bea").await;
    add_notes(&app, &bea, "bea-", "haystack", 20_000).await;
    for q in ["needle", "nowhere", "haystack"] {
        use server::text::query::QuerySyntax;
        let query = server::text::query::parse(q).unwrap();
        let plan: Vec<String> = sqlx::query_scalar(&format!(
            "EXPLAIN {}",
            server::storage::postgres::search::search_sql()
        ))
        .bind(query.to_tsquery())
        .bind(server::storage::postgres::search::scope_lexeme(&bea))
        .bind(&bea)
        .bind(21_i64)
        .bind(0_i64)
        .bind(query.to_rank_tsquery())
        .fetch_all(&app.pool)
        .await
        .unwrap();
        let plan = plan.join("\n");
        assert!(
            plan.contains("notes_scoped_search") && !plan.contains("Seq Scan"),
            "the search for {q:?} is planned as\n{plan}"
        );
    }
}

#[tokio::test]
async fn a_notes_search_document_on_postgresql_is_kept_in_its_row_up_to_a_page() {
    let app = spawn_app().await;
    if app.db.backend != Backend::Postgres {
        // FTS5 keeps its index apart from the note: there is no document in the row.
        return;
    }
    // 200 words of their own: a body of 1.8 KB and a search document of 3.2 KB, a row past
    // PostgreSQL's 2 KB default (where the document would be compressed, to 2.3 KB, or
    // moved to the TOAST table, and read back from there by every search that reads it)
    // and well within a page.
    let body: Vec<String> = (0..200).map(|n| format!("word{n:04}")).collect();
    let note = app.create("A long note", &body.join(" ")).await;
    let (compressed, document): (Option<String>, i64) = sqlx::query_as(
        "SELECT pg_column_compression(search), pg_column_size(search)::BIGINT \
         FROM notes WHERE id = $1",
    )
    .bind(&note.id)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(compressed, None, "the document is compressed");
    assert!(document > 3_000, "the document is {document} bytes");
    let out_of_line: i64 = sqlx::query_scalar(
        "SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE relname = 'notes'",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(
        out_of_line, 0,
        "the notes' TOAST table holds {out_of_line} bytes"
    );
    assert_eq!(titles(&search(&app, "word0199").await), ["A long note"]);
}

/// The median and 99th percentile of 200 searches for `q` by `client` (after 20 to warm
/// up), in milliseconds; each must find nothing.
async fn search_time(app: &TestApp, client: &reqwest::Client, q: &str) -> (f64, f64) {
    let mut times = Vec::new();
    for round in 0..220 {
        let started = std::time::Instant::now();
        let response = client
            .get(app.url("/api/search"))
            .query(&[("q", q)])
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let page: SearchPage = response.json().await.unwrap();
        assert!(page.results.is_empty());
        if round >= 20 {
            times.push(started.elapsed().as_secs_f64() * 1000.0);
        }
    }
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], times[times.len() * 99 / 100])
}

/// A figure, not a check: how long Bea's search for a word none of her notes hold takes
/// while the admin has 30,000 notes holding it, beside a word nobody has; then again with
/// 30,000 notes of Bea's own (without the word). Before the match was scoped to its
/// person, the admin's matches showed in Bea's time. Run with
/// `cargo test -p server --test api -- --ignored --nocapture search_time_for`.
#[tokio::test]
#[ignore = "a measurement, not a test"]
async fn search_time_for_one_person_beside_another_persons_matches() {
    const NOTES: i64 = 30_000;
    let app = spawn_app().await;
    let admin = user_id(&app, crate::helpers::ADMIN).await;
    add_notes(&app, &admin, "admin-", "needle", NOTES).await;
    let bea = app.new_user("bea").await;
    let bea_id = user_id(&app, "bea").await;
    for bea_notes in [0, NOTES] {
        if bea_notes > 0 {
            add_notes(&app, &bea_id, "bea-", "haystack", bea_notes).await;
        }
        let (theirs, theirs_p99) = search_time(&app, &bea, "needle").await;
        let (nobodys, nobodys_p99) = search_time(&app, &bea, "nowhere").await;
        println!(
            "{:?}, Bea with {bea_notes} notes, the admin holding the word {NOTES} times: \
             p50 {theirs:.2} ms (p99 {theirs_p99:.2}); a word nobody holds: p50 {nobodys:.2} ms \
             (p99 {nobodys_p99:.2})",
            app.db.backend
        );
    }
    // The same numbers of notes, written in turns (100 each), as people write at once:
    // the index's lists of the two people are interleaved.
    let app = spawn_app().await;
    let admin = user_id(&app, crate::helpers::ADMIN).await;
    let bea = app.new_user("bea").await;
    let bea_id = user_id(&app, "bea").await;
    for round in 0..NOTES / 100 {
        add_notes(&app, &admin, &format!("admin-{round}-"), "needle", 100).await;
        add_notes(&app, &bea_id, &format!("bea-{round}-"), "haystack", 100).await;
    }
    let (theirs, theirs_p99) = search_time(&app, &bea, "needle").await;
    let (nobodys, nobodys_p99) = search_time(&app, &bea, "nowhere").await;
    println!(
        "{:?}, Bea with {NOTES} notes written in turns with the admin's {NOTES} holding the \
         word: p50 {theirs:.2} ms (p99 {theirs_p99:.2}); a word nobody holds: p50 \
         {nobodys:.2} ms (p99 {nobodys_p99:.2})",
        app.db.backend
    );
}

/// The `Server-Timing` header of `response`, its fields joined.
fn server_timing(response: &reqwest::Response) -> String {
    response
        .headers()
        .get_all("server-timing")
        .iter()
        .map(|value| value.to_str().unwrap())
        .collect::<Vec<_>>()
        .join(", ")
}

async fn searched_for_word(app: &TestApp) -> reqwest::Response {
    let response = app
        .client
        .get(app.url("/api/search"))
        .query(&[("q", "word")])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response
}

#[tokio::test]
async fn with_server_timing_on_a_search_answer_says_the_servers_time_and_a_sign_in_says_nothing() {
    let app = crate::helpers::spawn_app_with(|config| config.server_timing = true).await;
    app.create("Timed", "a word to find").await;
    let sent = std::time::Instant::now();
    let response = searched_for_word(&app).await;
    let elapsed = sent.elapsed().as_secs_f64() * 1000.0;
    let timing = server_timing(&response);
    let search = server::http::server_timing::duration_of(&timing, "search")
        .unwrap_or_else(|| panic!("no search metric in {timing:?}"));
    let total = server::http::server_timing::duration_of(&timing, "total")
        .unwrap_or_else(|| panic!("no total metric in {timing:?}"));
    assert!(
        0.0 <= search && search <= total && total <= elapsed + 0.01,
        "the search's part {search} ms is within the server's whole {total} ms, within the \
         {elapsed} ms the client waited"
    );

    for (password, status) in [
        (crate::helpers::ADMIN_PASSWORD, 204),
        ("wrong password", 401),
    ] {
        let sign_in = crate::helpers::anonymous()
            .post(app.url("/api/session"))
            .json(&serde_json::json!({ "username": crate::helpers::ADMIN, "password": password }))
            .send()
            .await
            .unwrap();
        assert_eq!(sign_in.status(), status);
        assert_eq!(server_timing(&sign_in), "", "a sign-in answered {status}");
    }
}

#[tokio::test]
async fn a_search_answer_says_nothing_of_the_servers_time_by_default() {
    let app = spawn_app().await;
    app.create("Untimed", "a word to find").await;
    assert_eq!(server_timing(&searched_for_word(&app).await), "");
}
