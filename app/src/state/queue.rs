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

#[derive(Clone, Copy)]
pub struct SaveQueue {
    /// Unsaved entries, oldest first.
    pub entries: RwSignal<Vec<QueueEntry>>,
    /// Notes saved during this visit or learned from other tabs, newest first.
    pub saved: RwSignal<Vec<Note>>,
    /// The time, ticking each second, for "retrying in N s".
    pub now_ms: RwSignal<f64>,
    /// `navigator.onLine`, kept current by the `online` and `offline` events.
    pub online: RwSignal<bool>,
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
            now_ms: RwSignal::new(0.0),
            online: RwSignal::new(true),
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

    /// Shows a saved note (once).
    pub fn add_saved(&self, note: Note) {
        self.saved.update(|saved| {
            if !saved.iter().any(|n| n.id == note.id) {
                saved.insert(0, note);
            }
        });
    }

    /// Adds notes saved elsewhere (another tab, an earlier visit) that this page lacks.
    pub fn learn_notes(&self, notes: Vec<Note>) {
        let new: Vec<Note> = self.saved.with_untracked(|saved| {
            notes
                .into_iter()
                .filter(|n| !saved.iter().any(|s| s.id == n.id))
                .collect()
        });
        if !new.is_empty() {
            self.saved.update(|saved| saved.extend(new));
        }
    }
}
