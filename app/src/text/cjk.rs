//! CJK text for full-text search: which characters are Chinese, Japanese or Korean script,
//! and the overlapping bigrams that make such text searchable.
//!
//! SQLite's `unicode61` tokenizer splits words at spaces and punctuation, but Chinese and
//! Japanese are written without spaces, so a whole sentence would become one token and a
//! search for a word inside it would never match. Instead the note's CJK text is indexed a
//! second time, in the `cjk` column, as its overlapping character pairs ("東京都庁" →
//! "東京 京都 都庁"), and a CJK query word is matched as the phrase of its own pairs.
//! Both sides must use the functions here so that they agree on every pair.

/// At most this many bigrams are emitted for one note, so a huge note cannot blow up the
/// index; the caller puts the title first so it is always indexed.
pub const MAX_BIGRAMS: usize = 50_000;

/// Whether `c` is a CJK letter that is indexed by bigrams: Han ideographs (the unified
/// block, extensions A to I, the compatibility blocks, and the letter-like marks 々 〆 〇),
/// Hiragana, Katakana (including the halfwidth forms and the prolonged sound mark ー) and
/// Hangul (syllables and jamo).
///
/// CJK punctuation and symbols (、。「」・ and the like) are not letters: they separate runs
/// exactly as spaces do.
pub fn is_cjk(c: char) -> bool {
    matches!(
        u32::from(c),
        // Iteration mark 々, closing mark 〆, ideographic zero 〇 (the rest of the CJK
        // Symbols and Punctuation block is punctuation).
        0x3005..=0x3007
            // Hiragana, with the combining (semi-)voiced sound marks; not ゛゜ (0x309B–C).
            | 0x3041..=0x309A
            | 0x309D..=0x309F
            // Katakana without ゠ (0x30A0) and the middle dot ・ (0x30FB).
            | 0x30A1..=0x30FA
            | 0x30FC..=0x30FF
            // Katakana phonetic extensions.
            | 0x31F0..=0x31FF
            // Halfwidth Katakana, without the halfwidth punctuation before it.
            | 0xFF66..=0xFF9F
            // Kana supplement, extended-A and small kana extension.
            | 0x1B000..=0x1B16F
            // Hangul jamo, compatibility jamo, jamo extended-A and -B, syllables,
            // halfwidth jamo.
            | 0x1100..=0x11FF
            | 0x3131..=0x318E
            | 0xA960..=0xA97F
            | 0xAC00..=0xD7A3
            | 0xD7B0..=0xD7FF
            | 0xFFA0..=0xFFDC
            // Han: extension A, the unified block, compatibility ideographs.
            | 0x3400..=0x4DBF
            | 0x4E00..=0x9FFF
            | 0xF900..=0xFAFF
            // Han: the supplementary and tertiary ideographic planes (extensions B to I
            // and the compatibility supplement).
            | 0x20000..=0x3FFFF
    )
}

/// A piece of text that is either all CJK letters or has none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Segment<'a> {
    /// A maximal run of CJK letters.
    Cjk(&'a str),
    /// A maximal run of anything else.
    Other(&'a str),
}

/// Splits `text` into alternating maximal [`Segment`]s, in order; together they are `text`.
pub fn segments(text: &str) -> impl Iterator<Item = Segment<'_>> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let first = rest.chars().next()?;
        let cjk = is_cjk(first);
        let end = rest
            .char_indices()
            .find(|&(_, c)| is_cjk(c) != cjk)
            .map_or(rest.len(), |(i, _)| i);
        let (piece, tail) = rest.split_at(end);
        rest = tail;
        Some(if cjk {
            Segment::Cjk(piece)
        } else {
            Segment::Other(piece)
        })
    })
}

/// The maximal runs of CJK letters in `text`, in order.
pub fn runs(text: &str) -> impl Iterator<Item = &str> {
    segments(text).filter_map(|segment| match segment {
        Segment::Cjk(run) => Some(run),
        Segment::Other(_) => None,
    })
}

/// The overlapping bigrams of one run of CJK letters, or the run itself when it is a
/// single letter. Bigrams are slices of `run`, so nothing is allocated.
fn run_grams(run: &str) -> impl Iterator<Item = &str> {
    // Byte offsets of every char start, then the end: each bigram spans three of them.
    let mut bounds = run
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(run.len()));
    let mut a = bounds.next();
    let mut b = bounds.next();
    let mut single = a.is_some() && b == Some(run.len());
    std::iter::from_fn(move || {
        if single {
            single = false;
            return Some(run);
        }
        let c = bounds.next()?;
        let gram = &run[a?..c];
        a = b;
        b = Some(c);
        Some(gram)
    })
}

/// The text for the `cjk` column: the bigrams of every CJK run in `text`, space-separated,
/// and the run's last letter alone ("東京都庁" → "東京 京都 都庁 庁"; a lone letter stands
/// for itself). Text without CJK gives
/// an empty string. At most [`MAX_BIGRAMS`] bigrams are emitted.
///
/// CJK letters have no case, so there is nothing to lowercase.
pub fn bigrams(text: &str) -> String {
    let mut out = String::new();
    for gram in runs(text)
        .flat_map(|run| run_grams(run).chain(last_letter(run)))
        .take(MAX_BIGRAMS)
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(gram);
    }
    out
}

/// A run's last letter on its own, for a run of two or more: a one-letter query is a
/// prefix query on the bigrams, and the letter that ends a run ("東" of "関東") starts no
/// bigram of its own.
fn last_letter(run: &str) -> Option<&str> {
    let (at, _) = run.char_indices().last()?;
    (at > 0).then(|| &run[at..])
}

/// The bigrams of the CJK runs of one query word, in order; a run of one letter gives that
/// letter. A word without CJK gives nothing.
pub fn query_bigrams(word: &str) -> Vec<String> {
    runs(word).flat_map(run_grams).map(str::to_owned).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn han_kana_and_hangul_letters_are_cjk() {
        for c in [
            '東', '京', '㐀', '豈', '𠀋', 'あ', 'ア', 'ー', 'ｱ', 'ﾞ', '한', 'ᄀ', 'ㄱ', '々',
        ] {
            assert!(is_cjk(c), "{c:?} should be CJK");
        }
    }

    #[test]
    fn latin_digits_and_cjk_punctuation_are_not_cjk() {
        for c in [
            'a', 'Z', '1', 'é', ' ', '、', '。', '「', '」', '・', '･', '（', '！', '〜',
        ] {
            assert!(!is_cjk(c), "{c:?} should not be CJK");
        }
    }

    #[test]
    fn a_run_becomes_its_overlapping_bigrams() {
        assert_eq!(bigrams("東京都庁"), "東京 京都 都庁 庁");
    }

    #[test]
    fn a_two_letter_run_is_one_bigram() {
        assert_eq!(bigrams("東京"), "東京 京");
    }

    #[test]
    fn a_lone_cjk_letter_stands_for_itself() {
        assert_eq!(bigrams("a 東 b"), "東");
    }

    #[test]
    fn text_without_cjk_gives_nothing() {
        assert_eq!(bigrams("Hello, world! café 123"), "");
        assert_eq!(bigrams(""), "");
    }

    #[test]
    fn punctuation_spaces_and_latin_separate_runs() {
        assert_eq!(
            bigrams("東京、大阪。京都 奈良tower札幌"),
            "東京 京 大阪 阪 京都 都 奈良 良 札幌 幌"
        );
    }

    #[test]
    fn title_and_body_joined_by_a_newline_are_separate_runs() {
        assert_eq!(bigrams("日本語\n勉強"), "日本 本語 語 勉強 強");
    }

    #[test]
    fn kana_and_hangul_make_bigrams_too() {
        assert_eq!(bigrams("カタカナ"), "カタ タカ カナ ナ");
        assert_eq!(bigrams("ひらがな"), "ひら らが がな な");
        assert_eq!(bigrams("한국어"), "한국 국어 어");
    }

    #[test]
    fn supplementary_plane_ideographs_are_kept_whole() {
        assert_eq!(bigrams("𠮷野家"), "𠮷野 野家 家");
    }

    #[test]
    fn output_stops_after_the_bigram_limit() {
        let text = "漢".repeat(MAX_BIGRAMS * 2);
        let out = bigrams(&text);
        assert_eq!(out.split(' ').count(), MAX_BIGRAMS);
    }

    #[test]
    fn query_bigrams_lists_the_pairs_in_order() {
        assert_eq!(query_bigrams("東京都"), ["東京", "京都"]);
    }

    #[test]
    fn query_bigrams_of_one_letter_is_that_letter() {
        assert_eq!(query_bigrams("東"), ["東"]);
    }

    #[test]
    fn query_bigrams_skips_the_latin_part_of_a_mixed_word() {
        assert_eq!(query_bigrams("東京tower大阪府"), ["東京", "大阪", "阪府"]);
        assert!(query_bigrams("tower").is_empty());
    }

    #[test]
    fn segments_alternate_and_cover_the_text() {
        let parts: Vec<_> = segments("ab東京cd大").collect();
        assert_eq!(
            parts,
            [
                Segment::Other("ab"),
                Segment::Cjk("東京"),
                Segment::Other("cd"),
                Segment::Cjk("大"),
            ]
        );
        assert_eq!(segments("").count(), 0);
    }
}
