//! The unsaved queue as the page shows it: every intent not yet saved, and the stored
//! entries this version cannot read.

use leptos::prelude::*;

use crate::save::intent::{IntentKind, SaveIntent, Unreadable};

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

/// The unsaved intents of this page's person, as storage holds them.
#[derive(Clone, Copy)]
pub struct SaveQueue {
    /// Unsaved entries, oldest first.
    pub entries: RwSignal<Vec<QueueEntry>>,
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

    /// The newest edit of a note not yet saved nor refused: the one a later edit made
    /// before it is sent follows.
    pub fn latest_unsent_edit(&self, note_id: &str) -> Option<SaveIntent> {
        self.pending_for(note_id)
            .into_iter()
            .rev()
            .find(|i| matches!(i.kind, IntentKind::Edit { .. }) && !i.is_failed())
    }

    /// Whether the newest pin or unpin of a note not yet saved (nor refused) pins it; `None`
    /// when none waits. The page shows the note as that press left it.
    pub fn pinned_pending(&self, note_id: &str) -> Option<bool> {
        self.pending_for(note_id)
            .into_iter()
            .rev()
            .filter(|i| !i.is_failed())
            .find_map(|i| match i.kind {
                IntentKind::Pin { pinned, .. } => Some(pinned),
                _ => None,
            })
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
}
