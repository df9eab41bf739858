//! The pages answered from the offline copy, in the order the server lists them: the
//! notes (pinned first, then newest first, the trash left out), the trash (latest moved
//! there first), the tags with their counts, a tag's notes, one note. The copy holds every
//! note of the person, so each answer is one page with nothing older to link to.

use std::collections::BTreeMap;

use crate::api::{Note, NotesPage, TagCount, carries_tag};

/// `/`: the notes outside the trash, pinned first, then newest first.
pub fn notes(all: &[Note]) -> NotesPage {
    listed(all, |_| true)
}

/// `/trash`: the notes in the trash, the latest moved there first.
pub fn trash(all: &[Note]) -> NotesPage {
    let mut notes: Vec<Note> = all
        .iter()
        .filter(|n| n.trashed_at.is_some())
        .cloned()
        .collect();
    notes.sort_by(|a, b| (&b.trashed_at, &b.id).cmp(&(&a.trashed_at, &a.id)));
    NotesPage { notes, next: None }
}

/// `/tags/<tag>`: the notes outside the trash carrying the tag or one nested under it, in
/// the order of the notes' list.
pub fn tagged(all: &[Note], tag: &str) -> NotesPage {
    listed(all, |note| carries_tag(&note.tags, tag))
}

/// `/notes/<id>`: the note, in the trash or not.
pub fn note(all: &[Note], id: &str) -> Option<Note> {
    all.iter().find(|n| n.id == id).cloned()
}

/// `/tags`: every tag of the notes outside the trash, by name, with how many carry it.
pub fn tags(all: &[Note]) -> Vec<TagCount> {
    let mut counts: BTreeMap<&str, i64> = BTreeMap::new();
    for note in all.iter().filter(|n| n.trashed_at.is_none()) {
        for tag in &note.tags {
            *counts.entry(tag).or_default() += 1;
        }
    }
    counts
        .into_iter()
        .map(|(name, count)| TagCount {
            name: name.to_owned(),
            count,
        })
        .collect()
}

/// The notes outside the trash that `keep` takes, pinned first, then newest first.
pub(super) fn listed(all: &[Note], keep: impl Fn(&Note) -> bool) -> NotesPage {
    let mut notes: Vec<Note> = all
        .iter()
        .filter(|n| n.trashed_at.is_none() && keep(n))
        .cloned()
        .collect();
    notes.sort_by(|a, b| (b.pinned, &b.created_at, &b.id).cmp(&(a.pinned, &a.created_at, &a.id)));
    NotesPage { notes, next: None }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A note for the tests: `created` orders them, `tags` as the server found them.
    pub fn note(id: &str, created: &str, tags: &[&str]) -> Note {
        Note {
            id: id.into(),
            title: id.into(),
            body: String::new(),
            written_at: created.into(),
            created_at: created.into(),
            updated_at: created.into(),
            version: 1,
            trashed_at: None,
            conflict_of: None,
            tags: tags.iter().map(|t| (*t).to_owned()).collect(),
            pinned: false,
            html: None,
        }
    }

    fn ids(page: &NotesPage) -> Vec<&str> {
        page.notes.iter().map(|n| n.id.as_str()).collect()
    }

    #[test]
    fn the_list_has_pinned_notes_first_then_the_newest_and_leaves_the_trash_out() {
        let mut pinned = note("pinned", "2026-01-01", &[]);
        pinned.pinned = true;
        let mut trashed = note("trashed", "2026-03-01", &[]);
        trashed.trashed_at = Some("2026-03-02".into());
        let all = [
            note("old", "2026-01-02", &[]),
            pinned,
            trashed,
            note("new", "2026-02-01", &[]),
        ];
        let page = notes(&all);
        assert_eq!(ids(&page), ["pinned", "new", "old"]);
        assert_eq!(page.next, None);
    }

    #[test]
    fn the_trash_lists_the_latest_moved_there_first() {
        let mut a = note("a", "2026-01-01", &[]);
        a.trashed_at = Some("2026-05-01".into());
        let mut b = note("b", "2026-02-01", &[]);
        b.trashed_at = Some("2026-04-01".into());
        let all = [b, note("kept", "2026-03-01", &[]), a];
        assert_eq!(ids(&trash(&all)), ["a", "b"]);
    }

    #[test]
    fn a_tags_page_lists_the_notes_of_the_tag_and_of_tags_nested_under_it() {
        let all = [
            note("a", "1", &["work"]),
            note("b", "2", &["work/meetings"]),
            note("c", "3", &["workshop"]),
        ];
        assert_eq!(ids(&tagged(&all, "work")), ["b", "a"]);
    }

    #[test]
    fn tags_are_counted_by_name_outside_the_trash() {
        let mut trashed = note("t", "4", &["home"]);
        trashed.trashed_at = Some("5".into());
        let all = [
            note("a", "1", &["work", "home"]),
            note("b", "2", &["work"]),
            trashed,
        ];
        let counts: Vec<(String, i64)> =
            tags(&all).into_iter().map(|t| (t.name, t.count)).collect();
        assert_eq!(counts, [("home".into(), 1), ("work".into(), 2)]);
    }

    #[test]
    fn one_note_is_found_by_id_in_the_trash_too() {
        let mut trashed = note("t", "1", &[]);
        trashed.trashed_at = Some("2".into());
        assert_eq!(super::note(&[trashed.clone()], "t"), Some(trashed));
        assert_eq!(super::note(&[], "t"), None);
    }
}
