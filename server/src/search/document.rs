//! A note's words as PostgreSQL's search index holds them. SQLite's FTS5 cuts and folds
//! text with its `unicode61` tokenizer (`remove_diacritics 2`); PostgreSQL's own parser
//! and dictionaries cut differently (`e-mail`, `it's`, URLs) and fold nothing without the
//! `unaccent` extension. So on PostgreSQL the server cuts the text itself, with the same
//! tokenizer that reads the search box ([`super::query`]), folds each word the way
//! `unicode61` does (lower case, accents removed), and hands PostgreSQL plain words
//! separated by spaces: the note and the query agree on every word, on both databases.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

use super::cjk;
use super::query::tokenize;

/// Lower case without accents: "Café" → "cafe", "Naïve" → "naive". CJK letters are kept
/// as they are (Hangul syllables must not be decomposed into jamo: the bigrams are made
/// from the syllables).
pub fn fold(token: &str) -> String {
    let mut folded = String::with_capacity(token.len());
    for c in token.chars() {
        if cjk::is_cjk(c) {
            folded.push(c);
        } else {
            folded.extend(c.nfd().filter(|c| !is_combining_mark(*c)));
        }
    }
    folded.to_lowercase()
}

/// The words of `text`, folded, separated by single spaces.
pub fn words(text: &str) -> String {
    tokenize(text)
        .iter()
        .map(|token| fold(token))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_cut_like_the_search_box_and_folded_like_unicode61() {
        assert_eq!(words("Café, naïve e-mail it's"), "cafe naive e mail it s");
        assert_eq!(words("Cafe\u{301} ÉCOLE"), "cafe ecole");
        assert_eq!(words("東京tower 한국어"), "東京tower 한국어");
        assert_eq!(words("  ...  "), "");
    }

    #[test]
    fn folding_keeps_hangul_syllables_whole() {
        assert_eq!(fold("한국"), "한국");
        assert_eq!(fold("Ñandú"), "nandu");
    }
}
