//! The names an import keeps besides a note's text — labels, tags, notebooks, folders —
//! bounded, and each note's list of them without repeats.
//!
//! A name is kept only to become a `#tag`, and a tag holds at most
//! [`TAG_KEPT_CHARS`]` / 2` characters (the server cuts a longer one), so nothing past
//! [`TAG_KEPT_CHARS`] can change what a name becomes: an export's 2 MB label is 2 MB of
//! memory for nothing, and more for every note that names it. The list of a note's tags
//! drops repeats with a set, not by searching the list for each name (a million names in
//! one note's front matter would take 10¹² comparisons).

use std::collections::HashSet;

/// The most characters of a label, tag, notebook or folder name that are kept (twice the
/// longest tag, so the mapping of a name to a tag sees all that can matter).
pub const TAG_KEPT_CHARS: usize = 200;

/// `name` trimmed and cut to [`TAG_KEPT_CHARS`] characters.
pub fn kept(name: &str) -> String {
    let name = name.trim();
    match name.char_indices().nth(TAG_KEPT_CHARS) {
        Some((end, _)) => name[..end].trim_end().to_owned(),
        None => name.to_owned(),
    }
}

/// A note's tags: each name [`kept`], empty ones left out, each once, in their order.
pub fn note_tags<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut seen = HashSet::new();
    names
        .into_iter()
        .map(kept)
        .filter(|name| !name.is_empty())
        .filter(|name| seen.insert(name.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_cut_to_what_a_tag_can_use_at_a_character_boundary() {
        assert_eq!(kept("  Work  "), "Work");
        let long = "é".repeat(2_000_000);
        let cut = kept(&long);
        assert_eq!(cut.chars().count(), TAG_KEPT_CHARS);
        assert!(cut.len() <= 4 * TAG_KEPT_CHARS);
    }

    #[test]
    fn a_note_s_tags_are_kept_once_each_in_order_without_empty_ones() {
        assert_eq!(
            note_tags(["b", " a ", "", "b", "a", "c"]),
            ["b", "a", "c"].map(String::from)
        );
    }

    #[test]
    fn a_million_names_are_deduplicated_in_linear_time() {
        let names: Vec<String> = (0..1_000_000)
            .map(|n| format!("t{}", n % 500_000))
            .collect();
        let started = std::time::Instant::now();
        let tags = note_tags(names.iter().map(String::as_str));
        assert_eq!(tags.len(), 500_000);
        // The list's own search took minutes here; a set takes well under a second even
        // unoptimised on a loaded machine.
        assert!(started.elapsed() < std::time::Duration::from_secs(30));
    }
}
