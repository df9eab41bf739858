//! Cutting text into tokens, the one way the search box, the PostgreSQL search document
//! and the snippet's highlights all cut it: the way FTS5's `unicode61` tokenizer does,
//! runs of letters and digits (with their combining marks), so `e-mail` is the two tokens
//! "e mail" and `it's` the two tokens "it s". A CJK run stays inside its token; it is
//! matched by its bigrams (see [`super::cjk`]).

use unicode_normalization::char::is_combining_mark;

use super::fold::fold;

/// Whether `c` belongs inside a token. Combining marks stay with their letter, so a word
/// typed in decomposed form ("cafe\u{301}") is still one token, as for `unicode61`.
pub fn is_token_char(c: char) -> bool {
    c.is_alphanumeric() || is_combining_mark(c)
}

/// Splits text into lowercased tokens: maximal runs of [`is_token_char`] that still hold
/// a letter or digit once folded. A run of combining marks alone (U+0345, which Unicode
/// counts as a letter) folds to nothing: it is no word, not an empty one.
pub fn tokenize(text: &str) -> Vec<String> {
    text.split(|c: char| !is_token_char(c))
        .filter(|token| fold(token).chars().any(char::is_alphanumeric))
        .map(str::to_lowercase)
        .collect()
}

/// The tokens of `text`, each folded ([`fold`]: lower case, no diacritics): the words as
/// the search compares them.
pub fn folded_words(text: &str) -> impl Iterator<Item = String> {
    tokenize(text).into_iter().map(|token| fold(&token))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn punctuation_and_spaces_cut_tokens_and_case_is_lowered() {
        assert_eq!(
            tokenize("E-mail, it's  OK!"),
            ["e", "mail", "it", "s", "ok"]
        );
        assert!(tokenize("  ...  ").is_empty());
    }

    #[test]
    fn tokens_keep_their_accents_and_combining_marks() {
        assert_eq!(tokenize("Café cafe\u{301}"), ["café", "cafe\u{301}"]);
    }

    #[test]
    fn a_run_of_marks_alone_is_no_token() {
        assert_eq!(tokenize("x \u{345} y"), ["x", "y"]);
    }

    #[test]
    fn cjk_stays_inside_its_token() {
        assert_eq!(tokenize("東京Tower、한국어"), ["東京tower", "한국어"]);
    }

    #[test]
    fn folded_words_are_the_tokens_folded() {
        let words: Vec<String> = folded_words("Café ΣΟΦΙΑΣ e-mail").collect();
        assert_eq!(words, ["cafe", "σοφιασ", "e", "mail"]);
    }
}
