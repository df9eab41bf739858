//! The notes saved that the page knows of: whole ones from its data and answers, list
//! copies from the notes cache, and the ones deleted for good during this visit.

use leptos::prelude::*;

use crate::api::Note;

/// What the page knows of saved notes.
#[derive(Clone, Copy)]
pub struct KnownNotes {
    /// Whole notes as this page's data and the latest answers to this tab left them.
    pub saved: RwSignal<Vec<Note>>,
    /// Notes from the notes cache (other tabs, earlier visits): bodies cut to what a list
    /// shows, so they serve lists only, never a note's own page.
    pub cached: RwSignal<Vec<Note>>,
    /// Notes deleted for good during this visit.
    pub gone: RwSignal<Vec<String>>,
}

impl Default for KnownNotes {
    fn default() -> Self {
        Self::new()
    }
}

impl KnownNotes {
    pub fn new() -> Self {
        Self {
            saved: RwSignal::new(Vec::new()),
            cached: RwSignal::new(Vec::new()),
            gone: RwSignal::new(Vec::new()),
        }
    }

    /// Takes in a note as an answer left it: added once, or replacing an older version.
    pub fn add_saved(&self, note: Note) {
        self.learn_notes(vec![note]);
    }

    /// Takes in notes (from answers, other tabs, an earlier visit): each is added, or
    /// replaces the copy this page has when it is a newer version.
    pub fn learn_notes(&self, notes: Vec<Note>) {
        let changes: Vec<Note> = self.saved.with_untracked(|saved| {
            notes
                .into_iter()
                .filter(|n| {
                    saved
                        .iter()
                        .find(|s| s.id == n.id)
                        .is_none_or(|s| s.version < n.version)
                })
                .collect()
        });
        if !changes.is_empty() {
            self.saved.update(|saved| {
                for note in changes {
                    match saved.iter_mut().find(|s| s.id == note.id) {
                        Some(kept) => *kept = note,
                        None => saved.insert(0, note),
                    }
                }
            });
        }
    }

    /// The latest version of a note this page knows of.
    pub fn latest(&self, id: &str) -> Option<Note> {
        self.saved
            .with(|saved| saved.iter().find(|n| n.id == id).cloned())
    }

    /// A note deleted for good.
    pub fn forget(&self, id: &str) {
        self.saved.update(|saved| saved.retain(|n| n.id != id));
        self.gone.update(|gone| gone.push(id.to_owned()));
    }

    /// Whether a note was deleted for good during this visit.
    pub fn is_gone(&self, id: &str) -> bool {
        self.gone.with(|gone| gone.iter().any(|g| g == id))
    }
}
