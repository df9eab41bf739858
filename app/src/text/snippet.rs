//! The snippet under a search result: a short piece of the note around the first match,
//! as HTML in which every match is wrapped in `<mark>`.
//!
//! The note's text is escaped piece by piece and the `<mark>` tags are added between the
//! escaped pieces, so whatever the note holds (`<script>`, `</mark>`, quotes), the only
//! tags in a snippet are the ones written here.
//!
//! Matching follows the search itself: case- and accent-insensitive ("café" and "cafe"
//! match each other), whole tokens for words, tokens separated by punctuation or spaces for
//! phrases, and plain substrings for CJK text, which has no spaces between words.

use std::cell::Cell;

use super::cjk::is_cjk;
use super::fold::fold_char;
use super::html::escape_into;
use super::query::Term;
use super::tokens::{folded_words, is_token_char};

/// How much of a body a result's snippet shows, in characters (online and offline).
pub const SNIPPET_CHARS: usize = 160;

/// How far the window's ends may move to land on a space instead of inside a word.
const SNAP_CHARS: usize = 20;

/// How many bytes of patterns may be compared against the text for one snippet. Ordinary
/// notes need a tiny fraction of it; a note built to make every position a near-match of
/// a long phrase would otherwise cost seconds. When it runs out, no further matches are
/// looked for, so such a note only loses some highlights.
const WORK_LIMIT: usize = 4_000_000;

/// The HTML snippet for one result: about `max_chars` characters of the body around the
/// first match of any of `terms` (the start of the body if none matches there; the title
/// when the body is empty), whitespace collapsed to single spaces, "…" where the text was
/// cut, every match in the window wrapped in `<mark>…</mark>`, everything else escaped.
pub fn snippet(title: &str, body: &str, terms: &[Term], max_chars: usize) -> String {
    if max_chars == 0 {
        return String::new();
    }
    let patterns: Vec<Pattern> = terms.iter().filter_map(Pattern::new).collect();
    let mut text = Text::new(body);
    if text.chars.is_empty() {
        text = Text::new(title);
    }
    let first = patterns
        .iter()
        .filter_map(|pattern| text.next_match(pattern, 0))
        .min();
    let window = text.window(first, max_chars);
    let marks = match first {
        Some(_) => text.matches_in(&patterns, window),
        None => Vec::new(),
    };
    text.render(window, &marks)
}

/// A range of char positions, end excluded.
type Span = (usize, usize);

/// A term ready for matching: its tokens folded like the text.
struct Pattern {
    tokens: Vec<String>,
    /// The bytes of all tokens: what checking one place in the text may cost.
    cost: usize,
}

impl Pattern {
    /// The pattern for `term`; `None` when it has nothing to match. Tokens are cut again
    /// and folded as the search cuts and folds the note, so a term built by hand matches
    /// like a parsed one.
    fn new(term: &Term) -> Option<Self> {
        let tokens: Vec<String> = term
            .tokens()
            .iter()
            .flat_map(|token| folded_words(token))
            .collect();
        let cost = tokens.iter().map(String::len).sum();
        (!tokens.is_empty()).then_some(Self { tokens, cost })
    }
}

/// The text a snippet is cut from: its chars with whitespace collapsed, and their folded
/// form for matching, with the way back from one to the other.
struct Text {
    /// The text with runs of whitespace (and control characters) as single spaces,
    /// trimmed at both ends.
    chars: Vec<char>,
    /// The lowercased text without diacritics.
    folded: String,
    /// For each char, the byte in `folded` where its folded form starts; then
    /// `folded.len()`. Never decreasing.
    fold_start: Vec<usize>,
    /// What is left of [`WORK_LIMIT`].
    work_left: Cell<usize>,
}

impl Text {
    fn new(source: &str) -> Self {
        let mut chars = Vec::with_capacity(source.len());
        let mut pending_space = false;
        for c in source.chars() {
            if c.is_whitespace() || c.is_control() {
                pending_space = !chars.is_empty();
            } else {
                if pending_space {
                    chars.push(' ');
                    pending_space = false;
                }
                chars.push(c);
            }
        }
        let mut folded = String::with_capacity(chars.len());
        let mut fold_start = Vec::with_capacity(chars.len() + 1);
        for &c in &chars {
            fold_start.push(folded.len());
            fold_char(c, &mut folded);
        }
        fold_start.push(folded.len());
        Self {
            chars,
            folded,
            fold_start,
            work_left: Cell::new(WORK_LIMIT),
        }
    }

    /// The chars that folded into bytes `start..end` (not empty) of the folded text,
    /// with the marks folding dropped right after them.
    fn chars_of(&self, (start, end): Span) -> Span {
        let first = self
            .fold_start
            .partition_point(|&at| at <= start)
            .saturating_sub(1);
        let mut last = self
            .fold_start
            .partition_point(|&at| at < end)
            .max(first + 1);
        while last < self.chars.len() && self.fold_start[last + 1] == self.fold_start[last] {
            last += 1;
        }
        (first, last)
    }

    /// The first match of `pattern` starting at or after folded byte `from`, as chars.
    fn next_match(&self, pattern: &Pattern, from: usize) -> Option<Span> {
        let found = self.next_folded_match(pattern, from, self.folded.len())?;
        Some(self.chars_of(found))
    }

    /// The first match of `pattern` starting in folded bytes `from..until`, as bytes.
    fn next_folded_match(&self, pattern: &Pattern, from: usize, until: usize) -> Option<Span> {
        let first = pattern.tokens.first()?;
        let latin_start = !starts_with_cjk(first);
        // The first token must start before `until`, so it ends before this.
        let mut search_end = (until + first.len()).min(self.folded.len());
        while !self.folded.is_char_boundary(search_end) {
            search_end += 1;
        }
        let mut from = from;
        while from < until {
            let work = self
                .work_left
                .get()
                .checked_sub(pattern.cost + first.len())?;
            self.work_left.set(work);
            let start = from + self.folded.get(from..search_end)?.find(first.as_str())?;
            if start >= until {
                return None;
            }
            if let Some(end) = self.match_at(pattern, start) {
                return Some((start, end));
            }
            // A word can only start a match at a word start, so skip the rest of this word;
            // CJK text has no word starts, so try the next char.
            let rest = self.folded.get(start..)?;
            from = start
                + if latin_start {
                    rest.find(|c: char| !is_word_char(c)).unwrap_or(rest.len())
                } else {
                    rest.chars().next().map_or(rest.len(), char::len_utf8)
                };
        }
        None
    }

    /// Where the match of `pattern` beginning at folded byte `start` ends, if it does
    /// match there: the first token is known to be at `start`.
    fn match_at(&self, pattern: &Pattern, start: usize) -> Option<usize> {
        let folded = self.folded.as_str();
        let first = pattern.tokens.first()?;
        if !starts_with_cjk(first)
            && folded[..start]
                .chars()
                .next_back()
                .is_some_and(is_word_char)
        {
            return None;
        }
        let mut end = start + first.len();
        let mut previous = first;
        for token in &pattern.tokens[1..] {
            let rest = folded.get(end..)?;
            let gap = rest.find(is_token_char).unwrap_or(rest.len());
            if gap == 0 && !ends_with_cjk(previous) && !starts_with_cjk(token) {
                return None;
            }
            end += gap;
            if !folded.get(end..)?.starts_with(token.as_str()) {
                return None;
            }
            end += token.len();
            previous = token;
        }
        if !ends_with_cjk(previous) && folded[end..].chars().next().is_some_and(is_word_char) {
            return None;
        }
        Some(end)
    }

    /// About `max_chars` chars around the first match: a quarter of the window before it,
    /// moved back from the end of the text if needed, its ends moved to spaces nearby
    /// when that does not cut the match.
    fn window(&self, first: Option<Span>, max_chars: usize) -> Span {
        let len = self.chars.len();
        if len <= max_chars {
            return (0, len);
        }
        let (match_start, match_end) = first.unwrap_or((0, 0));
        let snap = SNAP_CHARS.min(max_chars / 4);
        let mut start = match_start
            .saturating_sub(max_chars / 4)
            .min(len - max_chars);
        let mut end = start + max_chars;
        if start > 0 {
            let limit = (start + snap).min(match_start);
            if let Some(space) = self.chars[start..limit].iter().position(|&c| c == ' ') {
                start += space + 1;
            }
        }
        if end < len {
            let limit = (end - snap).max(match_end).max(start + 1).min(end);
            if let Some(space) = self.chars[limit..end].iter().rposition(|&c| c == ' ') {
                end = limit + space;
            }
        }
        // Never begin or end beside "…" with a space.
        if start > 0 && start < end && self.chars[start] == ' ' {
            start += 1;
        }
        if end < len && start < end && self.chars[end - 1] == ' ' {
            end -= 1;
        }
        (start, end)
    }

    /// Every match of every pattern that starts inside `window`, clipped to it, sorted and
    /// with overlapping or touching matches merged.
    fn matches_in(&self, patterns: &[Pattern], (start, end): Span) -> Vec<Span> {
        let from = self.fold_start[start];
        let until = self.fold_start[end];
        let mut spans = Vec::new();
        for pattern in patterns {
            let mut at = from;
            while let Some(found) = self.next_folded_match(pattern, at, until) {
                let (span_start, span_end) = self.chars_of(found);
                spans.push((span_start, span_end.min(end)));
                at = found.1;
            }
        }
        spans.sort_unstable();
        let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
        for (span_start, span_end) in spans {
            match merged.last_mut() {
                Some(last) if span_start <= last.1 => last.1 = last.1.max(span_end),
                _ => merged.push((span_start, span_end)),
            }
        }
        merged
    }

    /// The window as escaped HTML with the marks added between escaped pieces.
    fn render(&self, (start, end): Span, marks: &[Span]) -> String {
        let mut out = String::with_capacity((end - start) * 2);
        if start > 0 {
            out.push('…');
        }
        let mut at = start;
        for &(mark_start, mark_end) in marks {
            escape_into(&mut out, self.chars[at..mark_start].iter().copied());
            out.push_str("<mark>");
            escape_into(&mut out, self.chars[mark_start..mark_end].iter().copied());
            out.push_str("</mark>");
            at = mark_end;
        }
        escape_into(&mut out, self.chars[at..end].iter().copied());
        if end < self.chars.len() {
            out.push('…');
        }
        out
    }
}

/// Whether `c` continues a non-CJK word, so a word match cannot begin or end beside it.
fn is_word_char(c: char) -> bool {
    is_token_char(c) && !is_cjk(c)
}

fn starts_with_cjk(token: &str) -> bool {
    token.chars().next().is_some_and(is_cjk)
}

fn ends_with_cjk(token: &str) -> bool {
    token.chars().next_back().is_some_and(is_cjk)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    fn word(w: &str) -> Term {
        Term::Word(w.to_owned())
    }

    fn phrase(tokens: &[&str]) -> Term {
        Term::Phrase(tokens.iter().map(|t| (*t).to_owned()).collect())
    }

    /// The tags in `html`, which must be only balanced `<mark>` and `</mark>`.
    fn assert_only_marks(html: &str) {
        let without = html.replace("<mark>", "").replace("</mark>", "");
        assert!(!without.contains('<'), "stray tag in {html}");
        assert!(!without.contains('>'), "stray > in {html}");
        assert!(!without.contains('"'), "stray quote in {html}");
        assert!(!without.contains('\''), "stray apostrophe in {html}");
        let mut open = false;
        let mut rest = html;
        while let Some(at) = rest.find('<') {
            rest = &rest[at..];
            if let Some(after) = rest.strip_prefix("<mark>") {
                assert!(!open, "nested mark in {html}");
                open = true;
                rest = after;
            } else if let Some(after) = rest.strip_prefix("</mark>") {
                assert!(open, "unopened mark in {html}");
                open = false;
                rest = after;
            } else {
                panic!("stray tag in {html}");
            }
        }
        assert!(!open, "unclosed mark in {html}");
    }

    #[test]
    fn a_word_is_marked() {
        assert_eq!(
            snippet("", "the quick brown fox", &[word("quick")], 100),
            "the <mark>quick</mark> brown fox"
        );
    }

    #[test]
    fn every_occurrence_in_the_window_is_marked() {
        assert_eq!(
            snippet("", "Fox, fox and FOX.", &[word("fox")], 100),
            "<mark>Fox</mark>, <mark>fox</mark> and <mark>FOX</mark>."
        );
    }

    #[test]
    fn a_word_matches_whole_tokens_only() {
        assert_eq!(
            snippet("", "cat catalog bobcat cat's", &[word("cat")], 100),
            "<mark>cat</mark> catalog bobcat <mark>cat</mark>&#39;s"
        );
    }

    #[test]
    fn an_accented_text_matches_an_unaccented_query() {
        assert_eq!(
            snippet("", "Un café crème", &[word("cafe"), word("creme")], 100),
            "Un <mark>café</mark> <mark>crème</mark>"
        );
    }

    #[test]
    fn an_accented_query_matches_unaccented_text() {
        assert_eq!(
            snippet("", "a cafe here", &[word("café")], 100),
            "a <mark>cafe</mark> here"
        );
    }

    #[test]
    fn decomposed_accents_match_and_stay_inside_the_mark() {
        assert_eq!(
            snippet("", "un cafe\u{301} noir", &[word("café")], 100),
            "un <mark>cafe\u{301}</mark> noir"
        );
    }

    #[test]
    fn case_is_ignored_beyond_ascii() {
        assert_eq!(
            snippet(
                "",
                "ÉCOLE Straße ΣΟΦΙΑ",
                &[word("école"), word("σοφια")],
                100
            ),
            "<mark>ÉCOLE</mark> Straße <mark>ΣΟΦΙΑ</mark>"
        );
    }

    #[test]
    fn final_sigma_matches_either_form() {
        assert_eq!(
            snippet("", "ΣΟΦΙΑΣ σοφιας", &[word("σοφιας")], 100),
            "<mark>ΣΟΦΙΑΣ</mark> <mark>σοφιας</mark>"
        );
    }

    #[test]
    fn dotted_capital_i_matches_plain_i() {
        assert_eq!(
            snippet("", "İstanbul", &[word("istanbul")], 100),
            "<mark>İstanbul</mark>"
        );
    }

    #[test]
    fn a_phrase_matches_across_punctuation_and_line_breaks() {
        assert_eq!(
            snippet(
                "",
                "send an e-mail today; e\nmail",
                &[phrase(&["e", "mail"])],
                100
            ),
            "send an <mark>e-mail</mark> today; <mark>e mail</mark>"
        );
    }

    #[test]
    fn a_phrase_needs_its_tokens_in_order_and_whole() {
        assert_eq!(
            snippet("", "mail e, email, e mails", &[phrase(&["e", "mail"])], 100),
            "mail e, email, e mails"
        );
    }

    #[test]
    fn a_cjk_word_matches_inside_a_sentence() {
        assert_eq!(
            snippet("", "今日は東京都庁に行きました", &[word("東京")], 100),
            "今日は<mark>東京</mark>都庁に行きました"
        );
    }

    #[test]
    fn kana_voicing_marks_are_not_ignored() {
        assert_eq!(
            snippet("", "かす がす", &[word("がす")], 100),
            "かす <mark>がす</mark>"
        );
    }

    #[test]
    fn hangul_matches_whole_syllables() {
        assert_eq!(
            snippet("", "각 가 한국어", &[word("가"), word("한국")], 100),
            "각 <mark>가</mark> <mark>한국</mark>어"
        );
    }

    #[test]
    fn a_latin_word_next_to_cjk_text_is_marked() {
        assert_eq!(
            snippet("", "新しいiPhoneを買った", &[word("iphone")], 100),
            "新しい<mark>iPhone</mark>を買った"
        );
    }

    #[test]
    fn a_mixed_word_matches() {
        assert_eq!(
            snippet("", "東京towerと東京 tower", &[word("東京tower")], 100),
            "<mark>東京tower</mark>と東京 tower"
        );
    }

    #[test]
    fn a_cjk_phrase_matches_with_or_without_a_space() {
        assert_eq!(
            snippet(
                "",
                "東京タワー、東京 タワー",
                &[phrase(&["東京", "タワー"])],
                100
            ),
            "<mark>東京タワー</mark>、<mark>東京 タワー</mark>"
        );
    }

    #[test]
    fn overlapping_matches_become_one_mark() {
        assert_eq!(
            snippet(
                "",
                "new york city",
                &[phrase(&["new", "york"]), phrase(&["york", "city"])],
                100
            ),
            "<mark>new york city</mark>"
        );
    }

    #[test]
    fn a_script_tag_in_the_note_is_escaped() {
        let html = snippet(
            "",
            "<script>alert('x')</script> & \"quoted\" alert",
            &[word("alert")],
            200,
        );
        assert_eq!(
            html,
            "&lt;script&gt;<mark>alert</mark>(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quoted&quot; <mark>alert</mark>"
        );
        assert_only_marks(&html);
    }

    #[test]
    fn a_closing_mark_in_the_note_cannot_inject_markup() {
        let html = snippet(
            "",
            "x</mark><img src=x onerror=alert(1)><mark>y",
            &[word("img"), word("mark"), word("onerror")],
            200,
        );
        assert_eq!(
            html,
            "x&lt;/<mark>mark</mark>&gt;&lt;<mark>img</mark> src=x <mark>onerror</mark>=alert(1)&gt;&lt;<mark>mark</mark>&gt;y"
        );
        assert_only_marks(&html);
    }

    #[test]
    fn a_term_containing_markup_is_only_text() {
        let html = snippet("", "a <b> c", &[word("<b>"), word("b")], 100);
        assert_eq!(html, "a &lt;<mark>b</mark>&gt; c");
        assert_only_marks(&html);
    }

    #[test]
    fn whitespace_is_collapsed_and_trimmed() {
        assert_eq!(
            snippet("", "  one\n\n\ttwo   three\r\n", &[], 100),
            "one two three"
        );
    }

    #[test]
    fn control_characters_become_spaces() {
        assert_eq!(snippet("", "a\u{0}b\u{1b}c", &[], 100), "a b c");
    }

    #[test]
    fn the_window_surrounds_the_first_match() {
        let body = format!("{} needle {}", "before ".repeat(100), "after ".repeat(100));
        let html = snippet("", &body, &[word("needle")], 60);
        assert!(html.starts_with('…'), "{html}");
        assert!(html.ends_with('…'), "{html}");
        assert!(html.contains("<mark>needle</mark>"), "{html}");
        let visible = html.replace("<mark>", "").replace("</mark>", "");
        assert!(visible.chars().count() <= 62, "{visible}");
    }

    #[test]
    fn the_window_ends_at_spaces_not_inside_words() {
        let body = format!("{} needle {}", "before ".repeat(100), "after ".repeat(100));
        let html = snippet("", &body, &[word("needle")], 60);
        let inner = html.trim_matches('…');
        for piece in inner
            .replace("<mark>", "")
            .replace("</mark>", "")
            .split(' ')
        {
            assert!(
                ["before", "needle", "after"].contains(&piece),
                "cut word {piece:?} in {html}"
            );
        }
    }

    #[test]
    fn a_match_near_the_end_fills_the_window_from_before() {
        let body = format!("{} needle", "word ".repeat(100));
        let html = snippet("", &body, &[word("needle")], 40);
        assert!(html.starts_with('…'), "{html}");
        assert!(html.ends_with("<mark>needle</mark>"), "{html}");
        assert!(html.chars().count() > 40, "{html}");
    }

    #[test]
    fn without_a_match_the_snippet_is_the_start_of_the_body() {
        let body = format!("first words {}", "more ".repeat(100));
        let html = snippet("title", &body, &[word("absent")], 30);
        assert!(html.starts_with("first words"), "{html}");
        assert!(html.ends_with('…'), "{html}");
        assert!(!html.contains("<mark>"));
    }

    #[test]
    fn a_match_only_in_the_title_shows_the_start_of_the_body() {
        assert_eq!(
            snippet("needle", "plain body", &[word("needle")], 100),
            "plain body"
        );
    }

    #[test]
    fn an_empty_body_shows_the_title_with_marks() {
        assert_eq!(
            snippet("My <b>needle</b>", " \n ", &[word("needle")], 100),
            "My &lt;b&gt;<mark>needle</mark>&lt;/b&gt;"
        );
    }

    #[test]
    fn a_short_text_is_not_cut() {
        assert_eq!(
            snippet("", "short", &[word("short")], 5),
            "<mark>short</mark>"
        );
    }

    #[test]
    fn a_zero_budget_gives_an_empty_snippet() {
        assert_eq!(snippet("t", "body", &[word("body")], 0), "");
    }

    #[test]
    fn a_window_cut_inside_a_match_keeps_the_mark_balanced() {
        let body = format!("{} x", "aa ".repeat(50));
        let html = snippet("", &body, &[phrase(&["aa"; 40])], 20);
        assert_only_marks(&html);
        assert!(html.starts_with("<mark>"), "{html}");
    }

    #[test]
    fn the_window_is_cut_at_char_boundaries() {
        let body = "é".repeat(500) + " 東京 " + &"字".repeat(500);
        let html = snippet("", &body, &[word("東京")], 50);
        assert!(html.contains("<mark>東京</mark>"), "{html}");
    }

    #[test]
    fn terms_without_letters_match_nothing() {
        assert_eq!(snippet("", "a - b", &[word(""), phrase(&[])], 100), "a - b");
    }

    #[test]
    fn hostile_bodies_never_produce_other_tags() {
        let bodies = [
            "</mark><img onerror=alert(1)>",
            "<mark>x</mark>",
            "\"'><svg/onload=x>",
            "&lt;already&gt; escaped",
            "<",
            ">",
            "a\u{301}\u{301}\u{301}",
            "\u{301}x",
        ];
        let terms = [word("mark"), word("x"), word("img"), word("lt"), word("a")];
        for body in bodies {
            for max in [1, 3, 10, 100] {
                assert_only_marks(&snippet(body, body, &terms, max));
                assert_only_marks(&snippet(body, "", &terms, max));
            }
        }
    }

    #[test]
    fn random_text_never_panics_and_keeps_marks_balanced() {
        let alphabet: Vec<char> = "ab é\u{301}東京あ한<>&\"'\n-.İ".chars().collect();
        let terms = [
            word("a"),
            word("ab"),
            word("東京"),
            phrase(&["a", "b"]),
            word("e"),
            word("i"),
            phrase(&["東", "a"]),
        ];
        let mut state: u64 = 0x2545_F491_4F6C_DD1D;
        for round in 0..3000 {
            let mut body = String::new();
            for _ in 0..(state % 60) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                body.push(alphabet[(state % alphabet.len() as u64) as usize]);
            }
            state = state.wrapping_add(1);
            assert_only_marks(&snippet("", &body, &terms, 1 + round % 30));
        }
    }

    /// Generous in debug builds; `cargo test --release` checks the real budget.
    fn budget(release_ms: u64) -> Duration {
        if cfg!(debug_assertions) {
            Duration::from_millis(release_ms * 25)
        } else {
            Duration::from_millis(release_ms)
        }
    }

    fn assert_fast(body: &str, terms: &[Term]) {
        let started = Instant::now();
        let html = snippet("title", body, terms, 200);
        let elapsed = started.elapsed();
        assert!(elapsed < budget(20), "took {elapsed:?}");
        assert_only_marks(&html);
    }

    #[test]
    fn a_100k_char_body_with_a_late_match_is_fast() {
        let body = "Lorem ipsum dolor sit amet, café crème. ".repeat(2500) + "needle";
        assert_eq!(body.chars().count(), 100_006);
        assert_fast(
            &body,
            &[word("needle"), phrase(&["absent", "words"]), word("cafe")],
        );
    }

    #[test]
    fn a_100k_char_body_without_matches_is_fast() {
        let body = "Übergrößenträger äöü ß ".repeat(4348);
        let terms: Vec<Term> = (0..32).map(|i| word(&format!("absent{i}"))).collect();
        assert_fast(&body, &terms);
    }

    #[test]
    fn a_100k_char_body_of_one_repeated_letter_is_fast() {
        let body = "a".repeat(100_000);
        let long = "a".repeat(199) + "b";
        assert_fast(&body, &[word(&long), phrase(&["a", "a"])]);
    }

    #[test]
    fn a_100k_char_body_where_every_place_almost_matches_is_fast() {
        let body = "東".repeat(100_000);
        let terms: Vec<Term> = (0..32)
            .map(|i| phrase(&[&"東".repeat(100 + i), "x"]))
            .collect();
        assert_fast(&body, &terms);
    }

    #[test]
    fn a_100k_char_cjk_body_is_fast() {
        let body = "東京都庁".repeat(25_000);
        let long = "東京都庁".repeat(49) + "x";
        assert_fast(&body, &[word(&long), word("都庁東京")]);
    }
}
