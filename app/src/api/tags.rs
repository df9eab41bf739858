//! Tags: what a `#tag` may be made of, and the wire shapes of the tag routes. The server
//! finds tags in a note's text (`server/src/text/tags.rs`); the browser checks a rename's
//! names with the same rules before it makes a key.

use serde::{Deserialize, Serialize};

/// The API path for tags.
pub const TAGS_PATH: &str = "/api/tags";
/// Longest tag, in characters.
pub const TAG_MAX_CHARS: usize = 100;

/// `GET /api/tags`: every tag of the person's notes outside the trash, by name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct TagList {
    pub tags: Vec<TagCount>,
}

/// A tag and how many notes (outside the trash) carry it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct TagCount {
    pub name: String,
    pub count: i64,
}

/// Whether a note's `tags` hold `tag` or a tag nested under it (`work` is carried by
/// `work` and `work/meetings`, not by `workshop`): what a tag's page lists.
pub fn carries_tag(tags: &[String], tag: &str) -> bool {
    tags.iter().any(|t| {
        t.strip_prefix(tag)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// `POST /api/tags/rename`: `from` becomes `to` in every note that has it (and `from/…`
/// becomes `to/…`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct TagRename {
    pub from: String,
    pub to: String,
    /// When the rename was asked for, RFC 3339.
    pub written_at: String,
}

/// The answer to a rename: how many notes it changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct TagRenamed {
    pub renamed: i64,
}

/// Why a name is not a tag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TagError {
    Empty,
    TooLong {
        chars: usize,
    },
    /// A character a tag cannot hold (a space, punctuation other than `_ - /`).
    Character(char),
    /// `/` at either end or twice in a row: a nested tag is `a/b`.
    EmptyLevel,
    /// Digits, `_`, `-` and `/` alone (`#1` is an issue number, not a tag).
    NoLetter,
}

impl std::fmt::Display for TagError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TagError::Empty => write!(f, "the tag is empty"),
            TagError::TooLong { chars } => write!(
                f,
                "the tag has {chars} characters; at most {TAG_MAX_CHARS} are allowed"
            ),
            TagError::Character(c) => {
                write!(f, "a tag holds letters, digits, _, - and / only, not {c:?}")
            }
            TagError::EmptyLevel => write!(
                f,
                "a nested tag is written a/b: no / at either end or twice in a row"
            ),
            TagError::NoLetter => write!(f, "a tag needs at least one letter"),
        }
    }
}

/// Whether `c` may stand in a tag: a letter or digit of any script, a combining mark
/// (the vowel signs of Indic scripts, Thai, accents written apart), a zero-width joiner,
/// or `_`, `-`, `/`.
pub fn is_tag_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '/') || is_mark(c)
}

/// Combining marks and joiners, by the blocks that hold them (an approximation of the
/// Unicode category M that needs no tables in the browser).
fn is_mark(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F | 0x0483..=0x0489 | 0x0591..=0x05BD | 0x05BF | 0x05C1..=0x05C2
        | 0x05C4..=0x05C5 | 0x05C7 | 0x0610..=0x061A | 0x064B..=0x065F | 0x0670
        | 0x06D6..=0x06DC | 0x06DF..=0x06E4 | 0x06E7..=0x06E8 | 0x06EA..=0x06ED
        | 0x0900..=0x0963 | 0x0966..=0x0DFF | 0x0E31 | 0x0E34..=0x0E3A | 0x0E47..=0x0E4E
        | 0x0EB1 | 0x0EB4..=0x0EBC | 0x0EC8..=0x0ECE | 0x0F18..=0x0F19 | 0x0F35 | 0x0F37
        | 0x0F39 | 0x0F71..=0x0F84 | 0x102B..=0x103E | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF
        | 0x200C..=0x200D | 0x20D0..=0x20FF | 0x302A..=0x302F | 0x3099..=0x309A
        | 0xFE00..=0xFE0F | 0xFE20..=0xFE2F)
}

/// A tag as it is kept and compared: the name given (a leading `#` is dropped) folded to
/// lower case, or why it cannot be a tag.
pub fn tag_name(raw: &str) -> Result<String, TagError> {
    let name = raw.trim();
    let name = name.strip_prefix('#').unwrap_or(name);
    if name.is_empty() {
        return Err(TagError::Empty);
    }
    let chars = name.chars().count();
    if chars > TAG_MAX_CHARS {
        return Err(TagError::TooLong { chars });
    }
    if let Some(c) = name.chars().find(|c| !is_tag_char(*c)) {
        return Err(TagError::Character(c));
    }
    if name.split('/').any(str::is_empty) {
        return Err(TagError::EmptyLevel);
    }
    if !name
        .chars()
        .any(|c| !c.is_numeric() && !matches!(c, '_' | '-' | '/'))
    {
        return Err(TagError::NoLetter);
    }
    Ok(name.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_folds_case_and_drops_its_hash() {
        assert_eq!(tag_name("#Work").unwrap(), "work");
        assert_eq!(tag_name("Projekt/Übung").unwrap(), "projekt/übung");
        assert_eq!(tag_name("日本語").unwrap(), "日本語");
        assert_eq!(tag_name("हिन्दी").unwrap(), "हिन्दी");
        assert_eq!(tag_name("to-do_2026").unwrap(), "to-do_2026");
    }

    #[test]
    fn names_a_tag_cannot_hold_say_why() {
        assert_eq!(tag_name(""), Err(TagError::Empty));
        assert_eq!(tag_name("#"), Err(TagError::Empty));
        assert_eq!(tag_name("a b"), Err(TagError::Character(' ')));
        assert_eq!(tag_name("a.b"), Err(TagError::Character('.')));
        assert_eq!(tag_name("a//b"), Err(TagError::EmptyLevel));
        assert_eq!(tag_name("/a"), Err(TagError::EmptyLevel));
        assert_eq!(tag_name("a/"), Err(TagError::EmptyLevel));
        assert_eq!(tag_name("123"), Err(TagError::NoLetter));
        assert_eq!(tag_name("_-"), Err(TagError::NoLetter));
        assert_eq!(
            tag_name(&"a".repeat(TAG_MAX_CHARS + 1)),
            Err(TagError::TooLong {
                chars: TAG_MAX_CHARS + 1
            })
        );
    }
}
