//! What the page learned from the change feed (PROTOCOL.md, "Changes and live updates"):
//! the writes of the person's other devices and tabs, as they happen. The browser glue
//! (`browser/live.rs`) reads the feed and applies each page of it here. The notes go into
//! `KnownNotes`, from which the lists, the trash and an open note fold what they show, as
//! they do with this tab's own answers; what only the feed can tell a page is kept here:
//! which notes changed or were deleted for good elsewhere (an open editor must not be
//! overwritten, only told), and the tag counts read again after a change.

use leptos::prelude::*;

use super::known_notes::KnownNotes;
use crate::api::{Change, ChangeKind, TagCount};

/// The page's view of the change feed.
#[derive(Clone, Copy)]
pub struct Feed {
    /// The newest version of each note that reached the page from the feed before this
    /// tab knew of it: written on another device (or in another tab).
    pub changed_elsewhere: RwSignal<Vec<(String, i64)>>,
    /// Notes deleted for good on another device (or in another tab) during this visit.
    pub purged_elsewhere: RwSignal<Vec<String>>,
    /// How many pages of changes the page has applied: what must be read again after a
    /// change (the tag counts) follows it.
    pub applied: RwSignal<u64>,
    /// Whether the page shows the tag counts, so the glue reads them again after changes.
    pub wants_tag_counts: StoredValue<bool>,
    /// The tag counts as last read after a change (`None` until then: the page's own).
    pub tag_counts: RwSignal<Option<Vec<TagCount>>>,
}

impl Default for Feed {
    fn default() -> Self {
        Self::new()
    }
}

impl Feed {
    pub fn new() -> Self {
        Self {
            changed_elsewhere: RwSignal::new(Vec::new()),
            purged_elsewhere: RwSignal::new(Vec::new()),
            applied: RwSignal::new(0),
            wants_tag_counts: StoredValue::new(false),
            tag_counts: RwSignal::new(None),
        }
    }

    /// Applies a page of the feed, oldest first: a note as it stands now replaces an older
    /// copy (or joins what the page knows), a note deleted for good is forgotten. A change
    /// the page already has (its own write, answered before the feed told of it; a note
    /// the page's data already showed) changes nothing.
    pub fn apply(&self, notes: &KnownNotes, changes: &[Change]) {
        let mut changed = Vec::new();
        let mut learned = Vec::new();
        let mut purged = Vec::new();
        for change in changes {
            match (change.kind, &change.note) {
                (ChangeKind::Upsert, Some(note)) => {
                    let news = notes.saved.with_untracked(|saved| {
                        saved
                            .iter()
                            .find(|s| s.id == note.id)
                            .is_none_or(|s| s.version < note.version)
                    });
                    if news {
                        changed.push((note.id.clone(), note.version));
                        learned.push(note.clone());
                    }
                }
                // An upsert without its note is not one this version can show; the next
                // change of the note carries it.
                (ChangeKind::Upsert, None) => {}
                (ChangeKind::Purge, _) => {
                    if !notes
                        .gone
                        .with_untracked(|gone| gone.contains(&change.note_id))
                    {
                        purged.push(change.note_id.clone());
                        notes.forget(&change.note_id);
                    }
                }
            }
        }
        // A page holds one change per note, so the order of upserts and purges between
        // notes does not matter.
        notes.learn_notes(learned);
        if !changed.is_empty() {
            self.changed_elsewhere.update(|all| {
                for (id, version) in changed {
                    match all.iter_mut().find(|(known, _)| *known == id) {
                        Some(entry) => entry.1 = entry.1.max(version),
                        None => all.push((id, version)),
                    }
                }
            });
        }
        if !purged.is_empty() {
            self.purged_elsewhere.update(|all| all.extend(purged));
        }
        self.applied.update(|n| *n += 1);
    }

    /// Whether the note `id` was changed elsewhere after `version` (tracked: a page
    /// showing it follows the feed).
    pub fn changed_after(&self, id: &str, version: i64) -> bool {
        self.changed_elsewhere.with(|all| {
            all.iter()
                .any(|(known, newest)| known == id && *newest > version)
        })
    }

    /// Whether the note `id` was deleted for good elsewhere during this visit (tracked).
    pub fn purged(&self, id: &str) -> bool {
        self.purged_elsewhere
            .with(|all| all.iter().any(|known| known == id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Note;

    /// Signals need a reactive owner (and, with the server's features, its arena).
    fn in_an_owner(test: impl FnOnce()) {
        leptos::prelude::Owner::new().with(test);
    }

    fn note(id: &str, version: i64) -> Note {
        Note {
            id: id.into(),
            title: format!("{id} v{version}"),
            body: "b".into(),
            written_at: "w".into(),
            created_at: "c".into(),
            updated_at: "u".into(),
            version,
            trashed_at: None,
            conflict_of: None,
            tags: Vec::new(),
            pinned: false,
            html: None,
        }
    }

    fn upsert(seq: i64, note: Note) -> Change {
        Change {
            seq,
            note_id: note.id.clone(),
            kind: ChangeKind::Upsert,
            note: Some(note),
        }
    }

    fn purge(seq: i64, id: &str) -> Change {
        Change {
            seq,
            note_id: id.into(),
            kind: ChangeKind::Purge,
            note: None,
        }
    }

    #[test]
    fn a_note_written_elsewhere_replaces_the_older_copy_and_is_marked_changed_elsewhere() {
        in_an_owner(|| {
            let (notes, feed) = (KnownNotes::new(), Feed::new());
            notes.learn_notes(vec![note("a", 1)]);
            feed.apply(&notes, &[upsert(7, note("a", 2)), upsert(8, note("b", 1))]);
            assert_eq!(notes.latest("a").map(|n| n.version), Some(2));
            assert_eq!(notes.latest("b").map(|n| n.version), Some(1));
            assert!(feed.changed_after("a", 1));
            assert!(
                !feed.changed_after("a", 2),
                "not after the version it brought"
            );
            assert!(feed.changed_after("b", 0));
        })
    }

    #[test]
    fn a_change_the_page_already_has_changes_nothing_and_is_not_counted_as_elsewhere() {
        in_an_owner(|| {
            let (notes, feed) = (KnownNotes::new(), Feed::new());
            // This tab's own edit: its answer came before the feed told of it.
            notes.learn_notes(vec![note("a", 3)]);
            feed.apply(&notes, &[upsert(4, note("a", 3)), upsert(2, note("a", 2))]);
            assert_eq!(notes.latest("a").map(|n| n.title), Some("a v3".to_owned()));
            assert!(!feed.changed_after("a", 0));
            assert_eq!(feed.applied.get_untracked(), 1);
        })
    }

    #[test]
    fn a_note_deleted_for_good_elsewhere_is_forgotten_and_said_to_be_purged_elsewhere() {
        in_an_owner(|| {
            let (notes, feed) = (KnownNotes::new(), Feed::new());
            notes.learn_notes(vec![note("a", 1)]);
            feed.apply(&notes, &[purge(9, "a")]);
            assert!(notes.latest("a").is_none());
            assert!(notes.is_gone("a"));
            assert!(feed.purged("a"));
        })
    }

    #[test]
    fn a_delete_this_tab_made_itself_is_not_said_to_be_elsewhere() {
        in_an_owner(|| {
            let (notes, feed) = (KnownNotes::new(), Feed::new());
            notes.learn_notes(vec![note("a", 1)]);
            notes.forget("a");
            feed.apply(&notes, &[purge(9, "a")]);
            assert!(notes.is_gone("a"));
            assert!(!feed.purged("a"));
        })
    }

    #[test]
    fn the_newest_version_from_elsewhere_is_kept_whatever_the_order_of_pages() {
        in_an_owner(|| {
            let (notes, feed) = (KnownNotes::new(), Feed::new());
            feed.apply(&notes, &[upsert(5, note("a", 4))]);
            feed.apply(&notes, &[upsert(6, note("a", 6))]);
            assert!(feed.changed_after("a", 5));
            assert!(!feed.changed_after("a", 6));
        })
    }
}
