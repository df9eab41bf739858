//! Another app's label, tag, notebook or folder names made into names a `#tag` can hold.
//!
//! A tag here is letters, digits (of any script), `_`, `-` and `/` (nesting), folded to
//! lower case (`app::api::tag_name`). Other apps allow spaces, punctuation and emoji. A
//! name is kept as it is when it can be a tag; otherwise each run of characters a tag
//! cannot hold becomes one `-`, empty nesting levels go, a name of digits alone gets a
//! `tag-` in front (a tag needs a letter), and a name too long is cut — and the import's
//! report lists each name changed so, with the name it became.

use app::api::{TAG_MAX_CHARS, is_tag_char, tag_name};

/// What became of one of the other app's names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TagName {
    /// It can be a tag as it is (folded to lower case).
    Kept(String),
    /// It could not; this is the name it was given.
    Mapped(String),
    /// Nothing of it can be a tag (only punctuation, say): left out.
    Dropped,
}

/// The tag `name` (another app's) becomes.
pub fn tag_for(name: &str) -> TagName {
    let trimmed = name.trim();
    let trimmed = trimmed.strip_prefix('#').unwrap_or(trimmed);
    if let Ok(kept) = tag_name(trimmed) {
        return TagName::Kept(kept);
    }
    let mut mapped = String::new();
    for c in trimmed.chars() {
        if is_tag_char(c) {
            mapped.push(c);
        } else if !mapped.ends_with(['-', '/']) && !mapped.is_empty() {
            mapped.push('-');
        }
    }
    let levels: Vec<&str> = mapped
        .split('/')
        .map(|level| level.trim_matches('-'))
        .filter(|level| !level.is_empty())
        .collect();
    let mut mapped = levels.join("/");
    if !mapped.is_empty() && !mapped.chars().any(|c| c.is_alphabetic()) {
        mapped.insert_str(0, "tag-");
    }
    let mapped: String = mapped.chars().take(TAG_MAX_CHARS).collect();
    let mapped = mapped.trim_end_matches(['-', '/']);
    match tag_name(mapped) {
        Ok(tag) => TagName::Mapped(tag),
        Err(_) => TagName::Dropped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_a_tag_can_hold_is_kept_folded() {
        assert_eq!(tag_for("Work"), TagName::Kept("work".into()));
        assert_eq!(
            tag_for("#Projects/2024"),
            TagName::Kept("projects/2024".into())
        );
        assert_eq!(tag_for("café"), TagName::Kept("café".into()));
    }

    #[test]
    fn spaces_and_punctuation_become_one_dash_each_run() {
        assert_eq!(
            tag_for("Reading list: 2025!"),
            TagName::Mapped("reading-list-2025".into())
        );
        assert_eq!(
            tag_for("tagPt1@+\\`\"'\\_tagPt2éáűőőúöüóí"),
            TagName::Mapped("tagpt1-_tagpt2éáűőőúöüóí".into())
        );
    }

    #[test]
    fn empty_levels_go_and_digits_alone_get_a_letter() {
        assert_eq!(tag_for("a//b/"), TagName::Mapped("a/b".into()));
        assert_eq!(tag_for("2024"), TagName::Mapped("tag-2024".into()));
        assert_eq!(tag_for("!!!"), TagName::Dropped);
        assert_eq!(tag_for(""), TagName::Dropped);
    }

    #[test]
    fn a_long_name_is_cut_to_the_longest_tag() {
        let TagName::Mapped(tag) = tag_for(&"a b".repeat(200)) else {
            panic!("mapped");
        };
        assert!(tag.chars().count() <= TAG_MAX_CHARS);
        assert!(tag_name(&tag).is_ok());
    }
}
