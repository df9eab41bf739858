//! How a word is folded before it is compared: the one rule the PostgreSQL search
//! document, the PostgreSQL query and the snippet's highlights all use, so a word found
//! by the search is the word highlighted, and the query and the document agree on every
//! lexeme. (SQLite's FTS5 folds with its own `unicode61 remove_diacritics 2`; this is
//! written to fold as it does.)

use unicode_normalization::char::{canonical_combining_class, decompose_canonical};

use super::cjk::is_cjk;

/// Lowercase without diacritics: "Café" → "cafe", "ΣΟΦΙΑΣ" → "σοφιασ". Each char is
/// folded on its own (see [`fold_char`]), so a word folds the same wherever it stands.
pub fn fold(text: &str) -> String {
    let mut folded = String::with_capacity(text.len());
    for c in text.chars() {
        fold_char(c, &mut folded);
    }
    folded
}

/// Appends the folded form of `c` to `out`: nothing, one char or a few.
///
/// - CJK letters are kept as they are, so kana keep their voicing marks (が is not か) and
///   Hangul syllables are not decomposed into jamo (the bigrams are made of syllables).
/// - Any other char is decomposed (NFD) and each part lowercased; the parts with a
///   non-zero combining class are what NFD splits off a letter (accents, cedillas, dots
///   below, ypogegrammeni): the diacritics to ignore, dropped, even standing alone.
///   Spacing vowel signs have class 0 and stay, so distinct Indic words are not merged.
/// - Final sigma ς folds to σ, as in `unicode61`: lowercasing a whole word turns its last
///   Σ into ς, while the same letter folded elsewhere, or typed in the middle of a
///   word, is σ.
pub fn fold_char(c: char, out: &mut String) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
    } else if is_cjk(c) {
        out.push(c);
    } else {
        decompose_canonical(c, |part| {
            for lower in part.to_lowercase() {
                match lower {
                    'ς' => out.push('σ'),
                    _ if canonical_combining_class(lower) != 0 => {}
                    _ => out.push(lower),
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accents_are_removed_and_case_is_lowered() {
        assert_eq!(fold("Café"), "cafe");
        assert_eq!(fold("ÉCOLE Naïve Ñandú"), "ecole naive nandu");
        assert_eq!(fold("İstanbul"), "istanbul");
    }

    #[test]
    fn combining_marks_are_dropped_wherever_they_stand() {
        assert_eq!(fold("cafe\u{301}"), "cafe");
        assert_eq!(fold("\u{345}"), "");
        assert_eq!(fold("\u{301}\u{308}"), "");
        assert_eq!(fold("ᾳ"), "α");
    }

    #[test]
    fn spacing_vowel_signs_stay() {
        assert_eq!(fold("किताब"), "किताब");
    }

    #[test]
    fn final_sigma_folds_like_sigma() {
        assert_eq!(fold("σοφίας"), "σοφιασ");
        assert_eq!(fold("ΣΟΦΙΑΣ"), "σοφιασ");
        assert_eq!(fold("ς"), "σ");
        assert_eq!(fold("σοφιας"), fold("ΣΟΦΙΑΣ"));
    }

    #[test]
    fn folding_lowercased_text_is_folding_the_text() {
        // The tokens are lowercased before they are folded (`tokens::folded_words`), and
        // the snippet folds the note as written: both must give the same words. Folding
        // goes a char at a time, so every char checked alone covers all text; the final
        // sigma lowercasing gives at the end of a word is checked on its own.
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let lower: String = c.to_lowercase().collect();
            assert_eq!(fold(&lower), fold(c.encode_utf8(&mut [0; 4])), "{c:?}");
        }
        assert_eq!(fold(&"ΣΟΦΙΑΣ".to_lowercase()), fold("ΣΟΦΙΑΣ"));
    }

    #[test]
    fn cjk_is_untouched() {
        assert_eq!(fold("東京"), "東京");
        assert_eq!(fold("が"), "が");
        assert_eq!(fold("한국어"), "한국어");
        assert_eq!(fold("東京Tower"), "東京tower");
    }
}
