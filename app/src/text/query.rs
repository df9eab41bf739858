//! The search box grammar: what a user types, parsed once into a small [`SearchQuery`].
//! The server renders it into SQLite FTS5 `MATCH` syntax or a PostgreSQL `tsquery`
//! (`server::text::query`); the browser matches it against the notes it keeps for
//! offline reading (`crate::offline::search`). Both read the same parse, so a search
//! finds the same notes online and offline.
//!
//! The grammar:
//! - `alpha beta` — notes with both words;
//! - `"alpha beta"` — the phrase (an unclosed quote runs to the end of the input);
//! - `-alpha`, `-"alpha beta"` — notes without the word or phrase;
//! - `alpha or beta -gamma` — either group: (alpha) OR (beta AND NOT gamma); `or` is the
//!   keyword in any case when it stands alone, unquoted and without `-`;
//! - `#tag` (outside quotes) — notes carrying the tag or one nested under it
//!   ([`take_tags`]).
//!
//! Words are cut into tokens as [`super::tokens`] cuts them (as FTS5's `unicode61`
//! does), so `e-mail` is the phrase "e mail" and `it's` the phrase "it s". A CJK token
//! stays whole; it is matched by its bigrams (see [`super::cjk`]).

use std::fmt;
use std::str::FromStr;

use super::tokens::tokenize;

/// At most this many terms (included and excluded, in all groups) are kept; the rest of
/// the input is ignored.
pub const MAX_TERMS: usize = 32;

/// A term's text is cut to this many characters before it is tokenized.
pub const MAX_TERM_CHARS: usize = 200;

/// Characters that open or close a phrase: the ASCII quote and the curly quotes that phone
/// keyboards type in its place.
const QUOTES: [char; 3] = ['"', '\u{201C}', '\u{201D}'];

/// A parsed search: a note matches when it matches any of the groups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchQuery {
    /// The alternatives, joined by OR; never empty, and each has an included term.
    pub groups: Vec<Group>,
}

/// Terms that must all hold: every `include` term is in the note and no `exclude` term is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Group {
    /// Terms the note must contain; never empty in a parsed query.
    pub include: Vec<Term>,
    /// Terms the note must not contain.
    pub exclude: Vec<Term>,
}

/// One thing to look for, as lowercased tokens.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    /// A single token.
    Word(String),
    /// Two or more tokens, in this order and next to each other.
    Phrase(Vec<String>),
}

/// Why a search could not be run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryError {
    /// Nothing to look for: the input was empty, all punctuation, or only exclusions.
    Empty,
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryError::Empty => f.write_str("type at least one word to search for"),
        }
    }
}

impl std::error::Error for QueryError {}

/// Splits the `#tags` out of what the user typed: each word outside quotes that is `#`
/// and a tag (see `app::api::tag_name`) asks for notes carrying that tag (or one nested
/// under it); the rest is searched for as words. A quoted `"#work"` is a word.
pub fn take_tags(input: &str) -> (Vec<String>, String) {
    let mut tags = Vec::new();
    let mut rest = String::with_capacity(input.len());
    let mut quoted = false;
    for word in input.split_inclusive(char::is_whitespace) {
        let bare = word.trim_end();
        if !quoted
            && bare.starts_with('#')
            && let Ok(tag) = crate::api::tag_name(bare)
        {
            if !tags.contains(&tag) {
                tags.push(tag);
            }
            rest.push(' ');
            continue;
        }
        if word.chars().filter(|c| QUOTES.contains(c)).count() % 2 == 1 {
            quoted = !quoted;
        }
        rest.push_str(word);
    }
    tags.truncate(MAX_TERMS);
    (tags, rest)
}

/// Parses what the user typed into a [`SearchQuery`]; see [`SearchQuery::parse`].
pub fn parse(input: &str) -> Result<SearchQuery, QueryError> {
    SearchQuery::parse(input)
}

impl FromStr for SearchQuery {
    type Err = QueryError;

    fn from_str(input: &str) -> Result<Self, Self::Err> {
        Self::parse(input)
    }
}

impl SearchQuery {
    /// Parses what the user typed. Never fails on odd input: anything that is not a word,
    /// a quote, a leading `-` or a standalone `or` is only a separator between tokens.
    /// Fails only when no group has a term to look for.
    pub fn parse(input: &str) -> Result<Self, QueryError> {
        let mut groups = Vec::new();
        let mut group = Group::default();
        let mut terms = 0;
        let mut rest = input;
        while terms < MAX_TERMS {
            rest = rest.trim_start();
            if rest.is_empty() {
                break;
            }
            let (excluded, after_sign) = match rest.strip_prefix('-') {
                Some(after) => (true, after),
                None => (false, rest),
            };
            let text = if let Some(inside) = after_sign.strip_prefix(QUOTES) {
                let (phrase, tail) = match inside.find(QUOTES) {
                    Some(close) => split_after_char(inside, close),
                    None => (inside, ""),
                };
                rest = tail;
                phrase
            } else {
                let end = after_sign
                    .find(char::is_whitespace)
                    .unwrap_or(after_sign.len());
                let (word, tail) = after_sign.split_at(end);
                rest = tail;
                if !excluded && word.eq_ignore_ascii_case("or") {
                    groups.extend(finished(std::mem::take(&mut group)));
                    continue;
                }
                word
            };
            let Some(term) = Term::from_text(text) else {
                continue;
            };
            terms += 1;
            if excluded {
                group.exclude.push(term);
            } else {
                group.include.push(term);
            }
        }
        groups.extend(finished(group));
        if groups.is_empty() {
            Err(QueryError::Empty)
        } else {
            Ok(Self { groups })
        }
    }

    /// Every included term of every group, once each, in order of appearance: what a
    /// result snippet should highlight.
    pub fn highlight_terms(&self) -> Vec<Term> {
        let mut terms: Vec<Term> = Vec::new();
        for term in self.groups.iter().flat_map(|group| &group.include) {
            if !terms.contains(term) {
                terms.push(term.clone());
            }
        }
        terms
    }
}

impl Term {
    /// The term for one word or phrase as typed: cut to [`MAX_TERM_CHARS`], split into
    /// lowercased tokens. `None` when it holds no letter or digit.
    fn from_text(text: &str) -> Option<Self> {
        let text = match text.char_indices().nth(MAX_TERM_CHARS) {
            Some((cut, _)) => &text[..cut],
            None => text,
        };
        let mut tokens = tokenize(text);
        match tokens.len() {
            0 => None,
            1 => tokens.pop().map(Term::Word),
            _ => Some(Term::Phrase(tokens)),
        }
    }

    /// The term's tokens, in order.
    pub fn tokens(&self) -> &[String] {
        match self {
            Term::Word(word) => std::slice::from_ref(word),
            Term::Phrase(tokens) => tokens,
        }
    }
}

/// Splits `text` around the char starting at byte `at`, leaving that char out.
fn split_after_char(text: &str, at: usize) -> (&str, &str) {
    let (before, from) = text.split_at(at);
    let mut chars = from.chars();
    chars.next();
    (before, chars.as_str())
}

/// The group, if it has something to look for.
fn finished(group: Group) -> Option<Group> {
    (!group.include.is_empty()).then_some(group)
}
