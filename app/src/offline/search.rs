//! The search box over the offline copy, with the server's own pieces: the same grammar
//! (`text::query`: words, "phrases", -exclusions, `or`, `#tags`), the same fold (case and
//! accents), the same tokens, CJK matched inside runs of CJK letters as the server's
//! bigrams match them, and the same snippets. A search finds offline what it finds online;
//! only the order differs a little: the server ranks by BM25, here notes whose title
//! holds a word come first, then the newest.

use crate::api::{Note, SearchHit, SearchPage, carries_tag};
use crate::text::cjk::{self, Segment};
use crate::text::fold::fold;
use crate::text::query::{self, Group, SearchQuery, Term};
use crate::text::snippet::{SNIPPET_CHARS, snippet};
use crate::text::tokens::folded_words;

/// The search for what the user typed in `q` over every kept note (the trash left out).
/// Fails as the server does when there is nothing to look for.
pub fn search(all: &[Note], q: &str) -> Result<SearchPage, String> {
    let (tags, words) = query::take_tags(q);
    let parsed = match query::parse(&words) {
        Ok(parsed) => Some(parsed),
        Err(_) if !tags.is_empty() => None,
        Err(error) => return Err(error.to_string()),
    };
    let mut found: Vec<(bool, &Note)> = all
        .iter()
        .filter(|n| n.trashed_at.is_none())
        .filter(|n| tags.iter().all(|tag| carries_tag(&n.tags, tag)))
        .filter_map(|note| match &parsed {
            None => Some((false, note)),
            Some(parsed) => {
                let words = NoteWords::new(note);
                matches(parsed, &words).then(|| (in_title(parsed, &words), note))
            }
        })
        .collect();
    found.sort_by(|(title_a, a), (title_b, b)| {
        (title_b, &b.created_at, &b.id).cmp(&(title_a, &a.created_at, &a.id))
    });
    let terms = parsed.map(|p| p.highlight_terms()).unwrap_or_default();
    let results = found
        .into_iter()
        .map(|(_, note)| SearchHit {
            snippet: snippet(&note.title, &note.body, &terms, SNIPPET_CHARS),
            note: note.clone(),
        })
        .collect();
    Ok(SearchPage {
        results,
        next: None,
    })
}

/// A note's words as the search compares them: the folded tokens of its title and of its
/// body (a phrase never spans the two), and its runs of CJK letters.
struct NoteWords {
    title: Vec<String>,
    body: Vec<String>,
    cjk_runs: Vec<String>,
}

impl NoteWords {
    fn new(note: &Note) -> Self {
        let cjk_runs = cjk::runs(&note.title)
            .chain(cjk::runs(&note.body))
            .map(str::to_owned)
            .collect();
        Self {
            title: folded_words(&note.title).collect(),
            body: folded_words(&note.body).collect(),
            cjk_runs,
        }
    }

    /// Whether the folded tokens stand next to each other, in order, in the title or in
    /// the body.
    fn has_phrase(&self, tokens: &[String]) -> bool {
        contains_run(&self.title, tokens) || contains_run(&self.body, tokens)
    }

    /// Whether a run of CJK letters is inside one of the note's runs: what the server's
    /// phrase of the run's bigrams (or, for one letter, its prefix query) finds.
    fn has_cjk(&self, run: &str) -> bool {
        self.cjk_runs.iter().any(|kept| kept.contains(run))
    }
}

fn contains_run(words: &[String], tokens: &[String]) -> bool {
    !tokens.is_empty() && words.windows(tokens.len()).any(|window| window == tokens)
}

/// Whether any group of the query holds for the note.
fn matches(query: &SearchQuery, words: &NoteWords) -> bool {
    query.groups.iter().any(|group| group_holds(group, words))
}

fn group_holds(group: &Group, words: &NoteWords) -> bool {
    group.include.iter().all(|term| found(term, words))
        && !group.exclude.iter().any(|term| found(term, words))
}

/// Whether the title alone holds an included word of the query.
fn in_title(query: &SearchQuery, words: &NoteWords) -> bool {
    let title = NoteWords {
        title: words.title.clone(),
        body: Vec::new(),
        cjk_runs: Vec::new(),
    };
    query
        .highlight_terms()
        .iter()
        .any(|term| found(term, &title))
}

/// Whether one term is in the note. As on the server: a term without CJK is a phrase of
/// its folded tokens; in a term with CJK, the runs of other tokens stay phrases and each
/// CJK token is matched on its own, and all must hold.
fn found(term: &Term, words: &NoteWords) -> bool {
    let tokens: Vec<String> = term.tokens().iter().map(|t| fold(t)).collect();
    let mut latin: Vec<String> = Vec::new();
    for token in tokens {
        if token.chars().any(cjk::is_cjk) {
            if !latin.is_empty() && !words.has_phrase(&std::mem::take(&mut latin)) {
                return false;
            }
            if !cjk_token_found(&token, words) {
                return false;
            }
        } else {
            latin.push(token);
        }
    }
    latin.is_empty() || words.has_phrase(&latin)
}

/// One token holding CJK letters: each CJK run inside a run of the note, and each other
/// part a word of it; a mixed token ("東京tower") is also found written whole.
fn cjk_token_found(token: &str, words: &NoteWords) -> bool {
    let mut mixed = false;
    let parts = cjk::segments(token).all(|segment| match segment {
        Segment::Cjk(run) => words.has_cjk(run),
        Segment::Other(other) if other.chars().any(char::is_alphanumeric) => {
            mixed = true;
            words.has_phrase(&[other.to_owned()])
        }
        Segment::Other(_) => true,
    });
    parts || (mixed && words.has_phrase(&[token.to_owned()]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offline::reading::tests::note;

    fn with_text(id: &str, created: &str, title: &str, body: &str) -> Note {
        Note {
            title: title.into(),
            body: body.into(),
            ..note(id, created, &[])
        }
    }

    fn found_ids(all: &[Note], q: &str) -> Vec<String> {
        match search(all, q) {
            Ok(page) => page.results.into_iter().map(|hit| hit.note.id).collect(),
            Err(error) => panic!("{q:?} should search: {error}"),
        }
    }

    #[test]
    fn every_word_must_be_in_the_note() {
        let all = [
            with_text("both", "1", "Groceries", "milk and eggs"),
            with_text("one", "2", "Shopping", "milk only"),
        ];
        assert_eq!(found_ids(&all, "milk eggs"), ["both"]);
        assert_eq!(found_ids(&all, "milk"), ["one", "both"]);
    }

    #[test]
    fn accents_and_case_are_ignored_both_ways() {
        let all = [with_text("a", "1", "Le CAFÉ", "crème brûlée")];
        assert_eq!(found_ids(&all, "cafe"), ["a"]);
        assert_eq!(found_ids(&all, "Crème Brulee"), ["a"]);
    }

    #[test]
    fn words_are_whole_tokens_not_prefixes() {
        let all = [with_text("a", "1", "t", "meetings")];
        assert!(found_ids(&all, "meeting").is_empty());
    }

    #[test]
    fn cjk_words_are_found_inside_sentences_without_spaces() {
        let all = [
            with_text("tokyo", "1", "旅行", "東京都庁に行きました"),
            with_text("osaka", "2", "旅行", "大阪城"),
        ];
        assert_eq!(found_ids(&all, "東京"), ["tokyo"]);
        assert_eq!(found_ids(&all, "都庁"), ["tokyo"]);
        assert_eq!(found_ids(&all, "城"), ["osaka"]);
        assert!(found_ids(&all, "京大").is_empty());
    }

    #[test]
    fn a_phrase_needs_its_words_next_to_each_other_in_the_title_or_the_body() {
        let all = [
            with_text("next", "1", "t", "the quick brown fox"),
            with_text("apart", "2", "quick", "brown"),
        ];
        assert_eq!(found_ids(&all, "\"quick brown\""), ["next"]);
    }

    #[test]
    fn exclusions_and_alternatives_follow_the_grammar() {
        let all = [
            with_text("a", "1", "t", "alpha"),
            with_text("ab", "2", "t", "alpha beta"),
            with_text("g", "3", "t", "gamma"),
        ];
        assert_eq!(found_ids(&all, "alpha -beta"), ["a"]);
        assert_eq!(found_ids(&all, "beta or gamma"), ["g", "ab"]);
    }

    #[test]
    fn tags_narrow_the_search_and_alone_list_their_notes() {
        let all = [
            Note {
                body: "plan".into(),
                ..note("w", "1", &["work/meetings"])
            },
            Note {
                body: "plan".into(),
                ..note("h", "2", &["home"])
            },
        ];
        assert_eq!(found_ids(&all, "#work plan"), ["w"]);
        assert_eq!(found_ids(&all, "#home"), ["h"]);
    }

    #[test]
    fn the_trash_is_left_out() {
        let mut trashed = with_text("t", "1", "t", "needle");
        trashed.trashed_at = Some("2".into());
        assert!(found_ids(&[trashed], "needle").is_empty());
    }

    #[test]
    fn notes_with_the_word_in_the_title_come_first_then_the_newest() {
        let all = [
            with_text("title", "1", "Needle", "x"),
            with_text("body-old", "2", "t", "needle"),
            with_text("body-new", "3", "t", "needle"),
        ];
        assert_eq!(found_ids(&all, "needle"), ["title", "body-new", "body-old"]);
    }

    #[test]
    fn an_empty_search_is_refused_as_the_server_refuses_it() {
        assert!(search(&[], "  -x ").is_err());
    }

    #[test]
    fn the_snippet_marks_the_word_found() {
        let all = [with_text("a", "1", "t", "un café noir")];
        let page = search(&all, "cafe").unwrap();
        assert!(page.results[0].snippet.contains("<mark>café</mark>"));
    }
}
