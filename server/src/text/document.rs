//! A note's words as PostgreSQL's search index holds them. SQLite's FTS5 cuts and folds
//! text with its `unicode61` tokenizer (`remove_diacritics 2`); PostgreSQL's own parser
//! and dictionaries cut differently (`e-mail`, `it's`, URLs) and fold nothing without the
//! `unaccent` extension. So on PostgreSQL the server cuts the text itself, with the same
//! tokenizer that reads the search box ([`super::tokens`]), folds each word the way
//! `unicode61` does ([`super::fold`]: lower case, accents removed), and hands PostgreSQL
//! plain words separated by spaces: the note and the query agree on every word, on both
//! databases.

use super::tokens::folded_words;

/// The words of `text`, folded, separated by single spaces.
pub fn words(text: &str) -> String {
    folded_words(text).collect::<Vec<_>>().join(" ")
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
    fn the_document_folds_as_the_snippet_does() {
        assert_eq!(words("ΣΟΦΙΑΣ σοφιας"), "σοφιασ σοφιασ");
        assert_eq!(words("किताब"), "किताब");
    }

    #[test]
    fn a_word_that_folds_to_nothing_is_left_out() {
        assert_eq!(words("x \u{345} y"), "x y");
        assert_eq!(words("\u{345}"), "");
    }

    #[test]
    fn folding_keeps_hangul_syllables_whole() {
        assert_eq!(words("한국 Ñandú"), "한국 nandu");
    }
}
