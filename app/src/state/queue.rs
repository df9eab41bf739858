//! The unsaved queue as the page shows it, and the notes saved that the page knows of.

use leptos::prelude::*;

use crate::api::Note;
use crate::save::intent::{SaveIntent, Unreadable};

/// One entry of the unsaved list.
#[derive(Clone, Debug, PartialEq)]
pub enum QueueEntry {
    Intent(SaveIntent),
    /// A stored entry this version cannot read. It stays in storage and on the page
    /// (counted as not yet saved) until a person decides.
    Unreadable {
        storage_key: String,
        raw: String,
        why: Unreadable,
    },
}

impl QueueEntry {
    /// The entry's identity in the list: the intent's key, or the storage key.
    pub fn id(&self) -> &str {
        match self {
            QueueEntry::Intent(intent) => &intent.key,
            QueueEntry::Unreadable { storage_key, .. } => storage_key,
        }
    }

    pub fn intent(&self) -> Option<&SaveIntent> {
        match self {
            QueueEntry::Intent(intent) => Some(intent),
            QueueEntry::Unreadable { .. } => None,
        }
    }
}

/// A message about a finished write, shown until dismissed.
#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    /// The key of the write it is about (one notice per write).
    pub id: String,
    pub text: String,
    /// A link that goes with it: (href, label).
    pub link: Option<(String, String)>,
    /// What the person can do about it.
    pub action: Option<NoticeAction>,
}

/// A follow-up a notice offers.
#[derive(Clone, Debug, PartialEq)]
pub enum NoticeAction {
    /// Undo a move to the trash (restore the note).
    UndoTrash { note_id: String, title: String },
    /// Take a note that is in the trash out of it.
    Restore { note_id: String, title: String },
}

#[derive(Clone, Copy)]
pub struct SaveQueue {
    /// Unsaved entries, oldest first.
    pub entries: RwSignal<Vec<QueueEntry>>,
    /// Whole notes as this page's data and the latest answers to this tab left them.
    pub saved: RwSignal<Vec<Note>>,
    /// Notes from the notes cache (other tabs, earlier visits): bodies cut to what a list
    /// shows, so they serve lists only, never a note's own page.
    pub cached: RwSignal<Vec<Note>>,
    /// Notes deleted for good during this visit.
    pub gone: RwSignal<Vec<String>>,
    /// Messages about finished writes.
    pub notices: RwSignal<Vec<Notice>>,
    /// The time, ticking each second, for "retrying in N s".
    pub now_ms: RwSignal<f64>,
    /// `navigator.onLine`, kept current by the `online` and `offline` events.
    pub online: RwSignal<bool>,
    /// The server refused a write of this page because someone else is signed in on this
    /// browser now (the page's person signed out in another tab, another signed in).
    pub someone_else_signed_in: RwSignal<bool>,
}

impl Default for SaveQueue {
    fn default() -> Self {
        Self::new()
    }
}

impl SaveQueue {
    pub fn new() -> Self {
        Self {
            entries: RwSignal::new(Vec::new()),
            saved: RwSignal::new(Vec::new()),
            cached: RwSignal::new(Vec::new()),
            gone: RwSignal::new(Vec::new()),
            notices: RwSignal::new(Vec::new()),
            now_ms: RwSignal::new(0.0),
            online: RwSignal::new(true),
            someone_else_signed_in: RwSignal::new(false),
        }
    }

    /// The intent with `key`, as this page knows it.
    pub fn intent(&self, key: &str) -> Option<SaveIntent> {
        self.entries.with_untracked(|all| {
            all.iter()
                .filter_map(QueueEntry::intent)
                .find(|i| i.key == key)
                .cloned()
        })
    }

    /// Keys of the intents that still want sending, oldest first.
    pub fn sendable_keys(&self) -> Vec<String> {
        self.entries.with_untracked(|all| {
            all.iter()
                .filter_map(QueueEntry::intent)
                .filter(|i| !i.is_failed())
                .map(|i| i.key.clone())
                .collect()
        })
    }

    /// Adds a new intent at the end (it is the newest).
    pub fn add(&self, intent: SaveIntent) {
        self.entries
            .update(|all| all.push(QueueEntry::Intent(intent)));
    }

    /// Shows an intent's new state.
    pub fn replace(&self, intent: SaveIntent) {
        self.entries.update(|all| {
            if let Some(entry) = all.iter_mut().find(|e| e.id() == intent.key) {
                *entry = QueueEntry::Intent(intent);
            }
        });
    }

    /// Takes an entry off the list.
    pub fn remove(&self, id: &str) {
        self.entries.update(|all| all.retain(|e| e.id() != id));
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

    /// Unsaved intents about one note, oldest first.
    pub fn pending_for(&self, note_id: &str) -> Vec<SaveIntent> {
        self.entries.with(|all| {
            all.iter()
                .filter_map(QueueEntry::intent)
                .filter(|i| i.note_id() == Some(note_id))
                .cloned()
                .collect()
        })
    }

    /// Shows a notice (replacing an older one about the same write).
    pub fn notify(&self, notice: Notice) {
        self.notices.update(|all| {
            all.retain(|n| n.id != notice.id);
            all.push(notice);
        });
    }

    pub fn dismiss(&self, id: &str) {
        self.notices.update(|all| all.retain(|n| n.id != id));
    }
}
