//! The search box's query rendered for the databases: SQLite FTS5 `MATCH` syntax and a
//! PostgreSQL `tsquery`. The grammar itself (what the user typed, parsed once into a
//! [`SearchQuery`]) lives in the app crate (`app::text::query`), because the browser
//! searches the notes it keeps offline with the same parse. The user's text is never
//! handed to the database as query syntax: every token leaves here as a quoted string
//! literal, so `*`, `:`, `(`, `NEAR`, `AND` and friends are only ever words.

pub use app::text::query::{
    Group, MAX_TERM_CHARS, MAX_TERMS, QueryError, SearchQuery, Term, parse, take_tags,
};

use super::cjk::{self, Segment};
use super::fold::fold;

/// The FTS5 columns holding the note's own words.
const TEXT_COLUMNS: &str = "{title body}";

/// The FTS5 column holding the CJK bigrams of title and body.
const CJK_COLUMN: &str = "cjk";

/// A parsed query's renderings for the databases.
pub trait QuerySyntax {
    /// Renders the query as an FTS5 `MATCH` expression over the columns `title`, `body`
    /// and `cjk`. Every token is a quoted string literal; groups are `(a AND b NOT c)`
    /// joined by ` OR ` (FTS5's NOT is binary and binds tighter than AND, which gives
    /// the same rows as `(a AND b) NOT c`).
    fn to_fts5(&self) -> String;

    /// Renders the query as a PostgreSQL `to_tsquery('simple', …)` expression over the
    /// search document `document::words` makes: words folded the same way, each one a
    /// quoted lexeme; phrases with `<->`; `!` for exclusion; groups `(a & b & !c)` joined
    /// by ` | `. CJK tokens are the phrase of their bigrams, as on SQLite.
    fn to_tsquery(&self) -> String;

    /// The words every match holds, as a `tsquery`: each group's included terms, a
    /// phrase as all of its words, no exclusions. A superset of the matches that a GIN
    /// index answers alone — it never reads a note to recheck a phrase's order or an
    /// exclusion — so counting these reads no more notes than it counts.
    fn to_candidate_tsquery(&self) -> String;

    /// What a match's rank counts, as a `tsquery`: every included word of every group (a
    /// phrase's words, a CJK token's bigrams), any of them. `ts_rank` over an OR scores
    /// each word by its best-weighted occurrence (the title's) and less and less for each
    /// further one; over an AND it would weigh only how close pairs of them stand, and an
    /// exclusion's word, which no match holds, would leave every match the same rank.
    fn to_rank_tsquery(&self) -> String;
}

impl QuerySyntax for SearchQuery {
    fn to_fts5(&self) -> String {
        let groups: Vec<String> = self
            .groups
            .iter()
            .map(|group| {
                let include: Vec<String> = group.include.iter().map(term_fts5).collect();
                let mut rendered = format!("({}", include.join(" AND "));
                for term in &group.exclude {
                    rendered.push_str(" NOT ");
                    rendered.push_str(&term_fts5(term));
                }
                rendered.push(')');
                rendered
            })
            .collect();
        groups.join(" OR ")
    }

    fn to_tsquery(&self) -> String {
        let groups: Vec<String> = self
            .groups
            .iter()
            .map(|group| {
                let include = group
                    .include
                    .iter()
                    .map(|t| term_tsquery(t, Phrase::InOrder));
                let exclude = group
                    .exclude
                    .iter()
                    .map(|term| format!("!{}", term_tsquery(term, Phrase::InOrder)));
                format!(
                    "({})",
                    include.chain(exclude).collect::<Vec<_>>().join(" & ")
                )
            })
            .collect();
        groups.join(" | ")
    }

    fn to_candidate_tsquery(&self) -> String {
        let groups: Vec<String> = self
            .groups
            .iter()
            .map(|group| {
                let include: Vec<String> = group
                    .include
                    .iter()
                    .map(|t| term_tsquery(t, Phrase::AllOf))
                    .collect();
                format!("({})", include.join(" & "))
            })
            .collect();
        groups.join(" | ")
    }

    fn to_rank_tsquery(&self) -> String {
        let words: Vec<String> = self
            .groups
            .iter()
            .flat_map(|group| &group.include)
            .map(|term| term_tsquery(term, Phrase::AnyOf))
            .collect();
        words.join(" | ")
    }
}

/// How a phrase's lexemes are joined in a `tsquery`: in order and next to each other (the
/// query itself), merely all there (its candidates, see `to_candidate_tsquery`), or any
/// of them (what its rank counts, see `to_rank_tsquery`).
#[derive(Clone, Copy)]
enum Phrase {
    InOrder,
    AllOf,
    AnyOf,
}

impl Phrase {
    fn joiner(self) -> &'static str {
        match self {
            Phrase::InOrder => " <-> ",
            Phrase::AllOf => " & ",
            Phrase::AnyOf => " | ",
        }
    }

    /// How the parts of a term (its phrases and CJK tokens) are joined.
    fn parts_joiner(self) -> &'static str {
        match self {
            Phrase::InOrder | Phrase::AllOf => " & ",
            Phrase::AnyOf => " | ",
        }
    }
}

fn has_cjk(token: &str) -> bool {
    token.chars().any(cjk::is_cjk)
}

/// An FTS5 string literal: the token in double quotes, inner quotes doubled.
fn literal(token: &str) -> String {
    format!("\"{}\"", token.replace('"', "\"\""))
}

/// `column: "a" + "b"`: the tokens as one FTS5 phrase restricted to `column`.
fn phrase_fts5(column: &str, tokens: &[&str]) -> String {
    let literals: Vec<String> = tokens.iter().map(|token| literal(token)).collect();
    format!("{column}: {}", literals.join(" + "))
}

/// The parts joined by AND, in parentheses when there is more than one.
fn all_of(parts: Vec<String>) -> String {
    if parts.len() == 1 {
        parts.concat()
    } else {
        format!("({})", parts.join(" AND "))
    }
}

fn term_fts5(term: &Term) -> String {
    let tokens: Vec<&str> = term.tokens().iter().map(String::as_str).collect();
    if !tokens.iter().any(|token| has_cjk(token)) {
        return phrase_fts5(TEXT_COLUMNS, &tokens);
    }
    // A phrase mixing CJK and other tokens: runs of non-CJK tokens stay phrases, each CJK
    // token is matched on its own, and all must hold.
    let mut parts = Vec::new();
    let mut latin: Vec<&str> = Vec::new();
    for token in tokens {
        if has_cjk(token) {
            if !latin.is_empty() {
                parts.push(phrase_fts5(TEXT_COLUMNS, &latin));
                latin.clear();
            }
            parts.push(cjk_token_fts5(token));
        } else {
            latin.push(token);
        }
    }
    if !latin.is_empty() {
        parts.push(phrase_fts5(TEXT_COLUMNS, &latin));
    }
    all_of(parts)
}

/// One token holding CJK letters. Each CJK run is the phrase of its bigrams on the `cjk`
/// column (a lone letter is a prefix query, which finds it at the start of any bigram).
/// A mixed token ("東京tower") also needs its other parts in title or body; since
/// `unicode61` keeps such a token whole where it is written whole, the token itself is
/// an alternative.
fn cjk_token_fts5(token: &str) -> String {
    let mut parts = Vec::new();
    let mut mixed = false;
    for segment in cjk::segments(token) {
        match segment {
            Segment::Cjk(run) => {
                if run.chars().nth(1).is_none() {
                    parts.push(format!("{CJK_COLUMN}: {}*", literal(run)));
                } else {
                    let grams = cjk::query_bigrams(run);
                    let grams: Vec<&str> = grams.iter().map(String::as_str).collect();
                    parts.push(phrase_fts5(CJK_COLUMN, &grams));
                }
            }
            Segment::Other(other) => {
                if other.chars().any(char::is_alphanumeric) {
                    parts.push(phrase_fts5(TEXT_COLUMNS, &[other]));
                    mixed = true;
                }
            }
        }
    }
    if mixed {
        format!(
            "({} OR {})",
            phrase_fts5(TEXT_COLUMNS, &[token]),
            all_of(parts)
        )
    } else {
        all_of(parts)
    }
}

/// A tsquery lexeme: the token in single quotes (quotes doubled, backslashes escaped).
pub(crate) fn lexeme(token: &str) -> String {
    format!("'{}'", token.replace('\\', "\\\\").replace('\'', "''"))
}

/// Lexemes in a row, as one phrase.
fn phrase_tsquery(tokens: &[String], phrase: Phrase) -> String {
    let lexemes: Vec<String> = tokens.iter().map(|token| lexeme(token)).collect();
    if lexemes.len() == 1 {
        lexemes.concat()
    } else {
        format!("({})", lexemes.join(phrase.joiner()))
    }
}

fn term_tsquery(term: &Term, phrase: Phrase) -> String {
    let folded: Vec<String> = term.tokens().iter().map(|t| fold(t)).collect();
    if !folded.iter().any(|token| has_cjk(token)) {
        return phrase_tsquery(&folded, phrase);
    }
    // As for FTS5: runs of other tokens stay phrases, each CJK token is matched on its
    // own, and all must hold.
    let mut parts = Vec::new();
    let mut latin: Vec<String> = Vec::new();
    for token in folded {
        if has_cjk(&token) {
            if !latin.is_empty() {
                parts.push(phrase_tsquery(&latin, phrase));
                latin.clear();
            }
            parts.push(cjk_token_tsquery(&token, phrase));
        } else {
            latin.push(token);
        }
    }
    if !latin.is_empty() {
        parts.push(phrase_tsquery(&latin, phrase));
    }
    joined_tsquery(parts, phrase)
}

/// The parts of a term, all of them (any of them for a rank), in parentheses when there
/// is more than one.
fn joined_tsquery(parts: Vec<String>, phrase: Phrase) -> String {
    if parts.len() == 1 {
        parts.concat()
    } else {
        format!("({})", parts.join(phrase.parts_joiner()))
    }
}

/// One token holding CJK letters: each CJK run is the phrase of its bigrams (a lone
/// letter a prefix, which finds it at the start of any bigram); a mixed token also needs
/// its other parts, or is found whole.
fn cjk_token_tsquery(token: &str, phrase: Phrase) -> String {
    let mut parts = Vec::new();
    let mut mixed = false;
    for segment in cjk::segments(token) {
        match segment {
            Segment::Cjk(run) => {
                if run.chars().nth(1).is_none() {
                    parts.push(format!("{}:*", lexeme(run)));
                } else {
                    parts.push(phrase_tsquery(&cjk::query_bigrams(run), phrase));
                }
            }
            Segment::Other(other) => {
                if other.chars().any(char::is_alphanumeric) {
                    parts.push(lexeme(other));
                    mixed = true;
                }
            }
        }
    }
    if mixed {
        format!("({} | {})", lexeme(token), joined_tsquery(parts, phrase))
    } else {
        joined_tsquery(parts, phrase)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(input: &str) -> SearchQuery {
        match SearchQuery::parse(input) {
            Ok(query) => query,
            Err(error) => panic!("{input:?} should parse: {error}"),
        }
    }

    fn fts5(input: &str) -> String {
        parse(input).to_fts5()
    }

    fn word(w: &str) -> Term {
        Term::Word(w.to_owned())
    }

    fn phrase(tokens: &[&str]) -> Term {
        Term::Phrase(tokens.iter().map(|t| (*t).to_owned()).collect())
    }

    fn group(include: Vec<Term>, exclude: Vec<Term>) -> Group {
        Group { include, exclude }
    }

    /// No FTS5 syntax outside string literals but the operators and column filters this
    /// module writes itself.
    fn assert_only_our_syntax(rendered: &str) {
        let mut outside = String::new();
        let mut in_literal = false;
        let mut chars = rendered.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '"' {
                if in_literal && chars.peek() == Some(&'"') {
                    chars.next();
                    continue;
                }
                in_literal = !in_literal;
                outside.push(' ');
            } else if !in_literal {
                outside.push(c);
            }
        }
        assert!(!in_literal, "unterminated literal in {rendered}");
        let allowed = [
            "(", ")", "{title", "body}:", "cjk:", "AND", "OR", "NOT", "+", "*",
        ];
        for piece in outside.split_whitespace() {
            let piece = piece.trim_matches(|c| c == '(' || c == ')');
            assert!(
                piece.is_empty() || allowed.contains(&piece),
                "unexpected syntax {piece:?} in {rendered}"
            );
        }
        let open = outside.matches('(').count();
        assert_eq!(
            open,
            outside.matches(')').count(),
            "unbalanced in {rendered}"
        );
    }

    #[test]
    fn words_are_all_required() {
        assert_eq!(
            parse("alpha Beta").groups,
            [group(vec![word("alpha"), word("beta")], vec![])]
        );
    }

    #[test]
    fn a_quoted_phrase_is_one_term() {
        assert_eq!(
            parse("\"Hello World\" x").groups,
            [group(vec![phrase(&["hello", "world"]), word("x")], vec![])]
        );
    }

    #[test]
    fn curly_quotes_make_a_phrase_too() {
        assert_eq!(
            parse("“hello world”").groups,
            [group(vec![phrase(&["hello", "world"])], vec![])]
        );
    }

    #[test]
    fn a_quoted_single_word_is_a_word() {
        assert_eq!(
            parse("\"hello\"").groups,
            [group(vec![word("hello")], vec![])]
        );
    }

    #[test]
    fn an_unclosed_quote_takes_the_rest_of_the_input() {
        assert_eq!(
            parse("a \"b c -d or e").groups,
            [group(
                vec![word("a"), phrase(&["b", "c", "d", "or", "e"])],
                vec![]
            )]
        );
    }

    #[test]
    fn a_leading_minus_excludes_a_word_or_phrase() {
        assert_eq!(
            parse("a -b -\"c d\"").groups,
            [group(vec![word("a")], vec![word("b"), phrase(&["c", "d"])])]
        );
    }

    #[test]
    fn or_separates_groups() {
        assert_eq!(
            parse("a b or c -d").groups,
            [
                group(vec![word("a"), word("b")], vec![]),
                group(vec![word("c")], vec![word("d")]),
            ]
        );
    }

    #[test]
    fn or_is_a_keyword_in_any_case() {
        assert_eq!(parse("a OR b").groups.len(), 2);
        assert_eq!(parse("a Or b").groups.len(), 2);
    }

    #[test]
    fn quoted_or_excluded_or_is_a_word() {
        assert_eq!(
            parse("a \"or\" -or").groups,
            [group(vec![word("a"), word("or")], vec![word("or")])]
        );
    }

    #[test]
    fn or_inside_a_word_is_not_a_keyword() {
        assert_eq!(
            parse("orange or-else").groups,
            [group(vec![word("orange"), phrase(&["or", "else"])], vec![])]
        );
    }

    #[test]
    fn or_at_the_edges_or_repeated_leaves_no_empty_group() {
        assert_eq!(
            parse("or a or or b or").groups,
            [
                group(vec![word("a")], vec![]),
                group(vec![word("b")], vec![]),
            ]
        );
    }

    #[test]
    fn a_group_with_only_exclusions_is_dropped() {
        assert_eq!(parse("-a or b").groups, [group(vec![word("b")], vec![])]);
    }

    #[test]
    fn nothing_to_search_for_is_an_error() {
        for input in [
            "",
            "   ",
            "-a",
            "-a -\"b c\"",
            "or",
            "* : ( ) ^ + -",
            "\"\"",
            "\"",
            "\u{345}",
            "\u{345} ",
            "\u{345}\u{301} -\u{345}",
            "\"\u{345} \u{345}\"",
        ] {
            assert_eq!(
                SearchQuery::parse(input),
                Err(QueryError::Empty),
                "{input:?}"
            );
        }
    }

    #[test]
    fn the_error_tells_the_user_what_to_do() {
        assert_eq!(
            QueryError::Empty.to_string(),
            "type at least one word to search for"
        );
    }

    #[test]
    fn punctuation_inside_a_word_splits_it_into_a_phrase() {
        assert_eq!(
            parse("e-mail it's").groups,
            [group(
                vec![phrase(&["e", "mail"]), phrase(&["it", "s"])],
                vec![]
            )]
        );
    }

    #[test]
    fn a_quote_inside_a_word_is_plain_text() {
        assert_eq!(
            parse("say\"hi there\"").groups,
            [group(vec![phrase(&["say", "hi"]), word("there")], vec![])]
        );
    }

    #[test]
    fn fts5_operators_are_just_words() {
        assert_eq!(
            parse("NEAR(a b) AND x NOT y*").groups,
            [group(
                vec![
                    phrase(&["near", "a"]),
                    word("b"),
                    word("and"),
                    word("x"),
                    word("not"),
                    word("y"),
                ],
                vec![]
            )]
        );
    }

    #[test]
    fn tokens_are_lowercased_but_keep_their_accents() {
        assert_eq!(parse("CAFÉ").groups, [group(vec![word("café")], vec![])]);
    }

    #[test]
    fn a_decomposed_accent_stays_in_its_word() {
        assert_eq!(
            parse("cafe\u{301}s").groups,
            [group(vec![word("cafe\u{301}s")], vec![])]
        );
    }

    #[test]
    fn a_cjk_word_stays_one_term() {
        assert_eq!(
            parse("東京都庁").groups,
            [group(vec![word("東京都庁")], vec![])]
        );
    }

    #[test]
    fn only_the_first_32_terms_are_kept() {
        let input: Vec<String> = (0..40).map(|i| format!("w{i}")).collect();
        let query = parse(&input.join(" "));
        assert_eq!(query.groups[0].include.len(), MAX_TERMS);
        assert_eq!(query.groups[0].include[31], word("w31"));
    }

    #[test]
    fn excluded_terms_count_toward_the_limit() {
        let input: Vec<String> = (0..40).map(|i| format!("-x{i}")).collect();
        let query = parse(&format!("a {} b", input.join(" ")));
        assert_eq!(query.groups[0].include, [word("a")]);
        assert_eq!(query.groups[0].exclude.len(), MAX_TERMS - 1);
    }

    #[test]
    fn a_long_term_is_cut_to_200_characters() {
        let long = "a".repeat(1000);
        let query = parse(&format!("{long} b"));
        assert_eq!(
            query.groups[0].include,
            [word(&"a".repeat(MAX_TERM_CHARS)), word("b")]
        );
    }

    #[test]
    fn a_long_phrase_is_cut_to_200_characters() {
        let long = "ab ".repeat(100);
        let query = parse(&format!("\"{long}\""));
        let Term::Phrase(tokens) = &query.groups[0].include[0] else {
            panic!("expected a phrase");
        };
        assert_eq!(tokens.len(), 67);
    }

    #[test]
    fn a_10_kb_query_parses_quickly() {
        let inputs = [
            "word ".repeat(2048),
            "x".repeat(10_240),
            "\"".repeat(10_240),
            "- ".repeat(5120),
            "or ".repeat(3413),
            "東京".repeat(1706),
            "(*:^+".repeat(2048),
            format!("\"{}", "a b ".repeat(2560)),
        ];
        for input in &inputs {
            let started = std::time::Instant::now();
            if let Ok(query) = SearchQuery::parse(input) {
                assert_only_our_syntax(&query.to_fts5());
                let _ = query.to_tsquery();
                let _ = query.to_rank_tsquery();
            }
            assert!(started.elapsed() < std::time::Duration::from_millis(100));
        }
    }

    #[test]
    fn a_word_renders_on_title_and_body() {
        assert_eq!(fts5("hello"), r#"({title body}: "hello")"#);
    }

    #[test]
    fn words_render_as_and() {
        assert_eq!(
            fts5("hello world"),
            r#"({title body}: "hello" AND {title body}: "world")"#
        );
    }

    #[test]
    fn a_phrase_renders_with_plus() {
        assert_eq!(
            fts5("\"hello big world\""),
            r#"({title body}: "hello" + "big" + "world")"#
        );
        assert_eq!(fts5("e-mail"), r#"({title body}: "e" + "mail")"#);
    }

    #[test]
    fn exclusions_render_as_not() {
        assert_eq!(
            fts5("a b -c -\"d e\""),
            r#"({title body}: "a" AND {title body}: "b" NOT {title body}: "c" NOT {title body}: "d" + "e")"#
        );
    }

    #[test]
    fn groups_render_joined_by_or() {
        assert_eq!(
            fts5("a b or c -d"),
            r#"({title body}: "a" AND {title body}: "b") OR ({title body}: "c" NOT {title body}: "d")"#
        );
    }

    #[test]
    fn a_cjk_word_renders_as_its_bigram_phrase_on_the_cjk_column() {
        assert_eq!(fts5("東京都"), r#"(cjk: "東京" + "京都")"#);
        assert_eq!(fts5("東京"), r#"(cjk: "東京")"#);
    }

    #[test]
    fn a_single_cjk_letter_renders_as_a_prefix() {
        assert_eq!(fts5("東"), r#"(cjk: "東"*)"#);
    }

    #[test]
    fn a_mixed_word_needs_both_parts_or_the_whole_token() {
        assert_eq!(
            fts5("東京tower"),
            r#"(({title body}: "東京tower" OR (cjk: "東京" AND {title body}: "tower")))"#
        );
    }

    #[test]
    fn a_phrase_with_cjk_requires_each_cjk_token_and_the_latin_runs() {
        assert_eq!(
            fts5("\"new york 東京 tokyo\""),
            r#"(({title body}: "new" + "york" AND cjk: "東京" AND {title body}: "tokyo"))"#
        );
    }

    #[test]
    fn an_excluded_cjk_word_renders_after_not() {
        assert_eq!(
            fts5("メモ -東京都"),
            r#"(cjk: "メモ" NOT cjk: "東京" + "京都")"#
        );
    }

    #[test]
    fn hostile_input_renders_only_quoted_tokens() {
        let inputs = [
            "\"",
            "a\"b",
            "a \"\" b",
            "*",
            "a*",
            "NEAR(a b)",
            "NEAR/3",
            "-",
            "- -",
            "--a b",
            "a:b",
            "title:secret",
            "{title}: x",
            "(a OR b",
            "a) OR (b",
            "^start",
            "a + b",
            "AND OR NOT",
            "\u{0}x\u{1b}",
            "x \u{301} y",
            "東\u{3099}京",
        ];
        for input in inputs {
            if let Ok(query) = SearchQuery::parse(input) {
                assert_only_our_syntax(&query.to_fts5());
            }
        }
    }

    #[test]
    fn column_filters_typed_by_the_user_are_words() {
        assert_eq!(
            fts5("title:secret"),
            r#"({title body}: "title" + "secret")"#
        );
    }

    #[test]
    fn a_quote_in_a_token_would_be_doubled() {
        assert_eq!(literal("a\"b"), r#""a""b""#);
    }

    #[test]
    fn random_input_never_panics_and_never_leaks_syntax() {
        let alphabet: Vec<char> = "ab -\"“”*:()^+{}NEARornot東京あ한é\u{301}\t\n,.'"
            .chars()
            .collect();
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..2000 {
            let mut input = String::new();
            for _ in 0..(state % 40) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let index = (state % alphabet.len() as u64) as usize;
                input.push(alphabet[index]);
            }
            state = state.wrapping_add(1);
            match SearchQuery::parse(&input) {
                Ok(query) => {
                    assert!(query.groups.iter().all(|g| !g.include.is_empty()));
                    assert_only_our_syntax(&query.to_fts5());
                    assert!(!query.to_rank_tsquery().is_empty(), "{input:?}");
                }
                Err(QueryError::Empty) => {}
            }
        }
    }

    #[test]
    fn tsquery_renders_words_phrases_exclusions_and_or() {
        assert_eq!(
            parse("a \"b c\" -d -\"e f\" or g").to_tsquery(),
            "('a' & ('b' <-> 'c') & !'d' & !('e' <-> 'f')) | ('g')"
        );
    }

    #[test]
    fn a_querys_candidates_are_its_included_words_with_no_order_and_no_exclusion() {
        assert_eq!(
            parse("a \"b c\" -d -\"e f\" or g").to_candidate_tsquery(),
            "('a' & ('b' & 'c')) | ('g')"
        );
        assert!(!parse("東京タワー").to_candidate_tsquery().contains("<->"));
    }

    #[test]
    fn a_querys_rank_counts_any_included_word_and_no_excluded_one() {
        assert_eq!(
            parse("a \"b c\" -d -\"e f\" or g").to_rank_tsquery(),
            "'a' | ('b' | 'c') | 'g'"
        );
        let cjk = parse("東京タワー").to_rank_tsquery();
        assert!(!cjk.contains("<->") && !cjk.contains('&'), "{cjk}");
    }

    #[test]
    fn tsquery_folds_accents_and_keeps_every_token_a_quoted_lexeme() {
        assert_eq!(
            parse("Café or it's").to_tsquery(),
            "('cafe') | (('it' <-> 's'))"
        );
        assert_eq!(
            parse("e-mail NEAR(x) & !").to_tsquery(),
            "(('e' <-> 'mail') & ('near' <-> 'x'))"
        );
    }

    #[test]
    fn a_token_that_folds_to_nothing_is_dropped() {
        assert_eq!(
            parse("word \u{345}").groups,
            [group(vec![word("word")], vec![])]
        );
        assert_eq!(
            parse("\"a \u{345} b\"").groups,
            [group(vec![phrase(&["a", "b"])], vec![])]
        );
        assert_eq!(parse("word \u{345}").to_tsquery(), "('word')");
    }

    #[test]
    fn tsquery_folds_final_sigma_like_sigma() {
        assert_eq!(parse("ΣΟΦΙΑΣ").to_tsquery(), "('σοφιασ')");
        assert_eq!(parse("σοφιας").to_tsquery(), "('σοφιασ')");
    }

    #[test]
    fn tsquery_matches_cjk_by_bigrams_and_a_lone_letter_by_prefix() {
        assert_eq!(parse("東京都").to_tsquery(), "(('東京' <-> '京都'))");
        assert_eq!(parse("東").to_tsquery(), "('東':*)");
        assert_eq!(
            parse("東京tower").to_tsquery(),
            "(('東京tower' | ('東京' & 'tower')))"
        );
    }

    #[test]
    fn highlight_terms_are_the_included_terms_once_each() {
        assert_eq!(
            parse("a \"b c\" -d or a e").highlight_terms(),
            [word("a"), phrase(&["b", "c"]), word("e")]
        );
    }

    #[test]
    fn from_str_and_the_free_parse_agree_with_search_query_parse() {
        assert_eq!(
            "a or b".parse::<SearchQuery>(),
            SearchQuery::parse("a or b")
        );
        assert_eq!(super::parse("a or b"), SearchQuery::parse("a or b"));
    }

    #[test]
    fn a_hash_word_outside_quotes_is_a_tag_and_the_rest_stays_words() {
        let (tags, rest) = take_tags("#Work plan \"#quoted\" #a/b #1 #work");
        assert_eq!(tags, ["work", "a/b"]);
        assert_eq!(
            super::parse(&rest).unwrap(),
            super::parse("plan \"#quoted\" #1").unwrap()
        );
        let (tags, rest) = take_tags("#only");
        assert_eq!(tags, ["only"]);
        assert!(
            super::parse(&rest).is_err(),
            "nothing left to look for as words"
        );
    }
}
