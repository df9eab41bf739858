//! Search: a relevance corpus with expected top results (accented, CJK and HTML-bearing
//! notes among 200+), hostile queries that must never error, snippets that can never
//! carry markup but `<mark>`, and notes in the trash left out.

use app::api::SearchPage;

use crate::helpers::{TestApp, spawn_app};

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
