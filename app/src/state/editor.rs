//! The editor: the draft being written, how it relates to an intent, and the message
//! about the last press.

use leptos::prelude::*;

use crate::api::Note;
use crate::save::press::Link;

/// What an editor writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EditorTarget {
    /// A new note (the compose form).
    NewNote,
    /// An existing note.
    Note { id: String },
}

#[derive(Clone, Copy)]
pub struct Editor {
    pub target: StoredValue<EditorTarget>,
    /// For an existing note: the version the person started editing from.
    pub base_version: RwSignal<i64>,
    /// The text the editor started from (empty for a new note), to tell typed changes.
    pub original: StoredValue<(String, String)>,
    pub title: RwSignal<String>,
    pub body: RwSignal<String>,
    /// A message about the last press (validation, storage full, a refused draft).
    pub notice: RwSignal<Option<String>>,
    /// The intent this draft was pressed on, or loaded from for editing.
    pub link: RwSignal<Option<Link>>,
}

impl Default for Editor {
    fn default() -> Self {
        Self::new()
    }
}

impl Editor {
    /// The compose form's editor.
    pub fn new() -> Self {
        Self::for_target(EditorTarget::NewNote, 0)
    }

    /// An editor for an existing note, starting from `version`.
    pub fn for_note(id: &str, version: i64) -> Self {
        Self::for_target(EditorTarget::Note { id: id.to_owned() }, version)
    }

    fn for_target(target: EditorTarget, version: i64) -> Self {
        Self {
            target: StoredValue::new(target),
            base_version: RwSignal::new(version),
            original: StoredValue::new((String::new(), String::new())),
            title: RwSignal::new(String::new()),
            body: RwSignal::new(String::new()),
            notice: RwSignal::new(None),
            link: RwSignal::new(None),
        }
    }

    /// Typed text that no press of Save has made an intent of yet.
    pub fn has_unpressed_text(&self) -> bool {
        let (title, body) = (self.title.get_untracked(), self.body.get_untracked());
        let original = self.original.get_value();
        self.link.with_untracked(Option::is_none)
            && (title, body) != original
            && !(self.title.with_untracked(String::is_empty)
                && self.body.with_untracked(String::is_empty))
    }

    /// Whether the editor is linked to the intent with `key`.
    pub fn is_linked_to(&self, key: &str) -> bool {
        self.link
            .with_untracked(|l| l.as_ref().is_some_and(|l| l.key() == key))
    }

    /// The draft is saved: the editor is emptied if it still holds exactly that text.
    pub fn saved(&self, key: &str, title: &str, body: &str) {
        if !self.is_linked_to(key) {
            return;
        }
        self.link.set(None);
        if self.title.get_untracked() == title && self.body.get_untracked() == body {
            self.clear_text();
        }
    }

    /// Puts `title` and `body` in the editor.
    pub fn fill(&self, title: &str, body: &str) {
        self.title.set(title.to_owned());
        self.body.set(body.to_owned());
    }

    /// Empties the title and the body.
    pub fn clear_text(&self) {
        self.title.set(String::new());
        self.body.set(String::new());
    }

    /// Closes the editor: what was typed is dropped, and with it the link and the
    /// message (a pressed edit stays queued).
    pub fn close(&self) {
        self.clear_text();
        self.link.set(None);
        self.notice.set(None);
    }

    /// Makes the editor write to the note `id`, starting from `base_version`.
    pub fn aim_at(&self, id: &str, base_version: i64) {
        self.target
            .set_value(EditorTarget::Note { id: id.to_owned() });
        self.base_version.set(base_version);
    }

    /// Points the editor at `note`: the version it starts from and its text, with nothing
    /// typed yet.
    pub fn point_at(&self, note: &Note) {
        self.aim_at(&note.id, note.version);
        self.original
            .set_value((note.title.clone(), note.body.clone()));
        self.close();
    }

    /// Loads the text of the intent with `key` to be changed; the next Save replaces that
    /// intent with a new key.
    pub fn load_for_editing(&self, key: &str, title: &str, body: &str) {
        self.fill(title, body);
        self.link.set(Some(Link::Editing(key.to_owned())));
        self.notice.set(None);
    }

    /// The draft was saved by another tab while this one looked away.
    pub fn saved_elsewhere(&self) {
        self.link.set(None);
        self.clear_text();
        self.notice
            .set(Some("Already saved (by another tab).".into()));
    }
}
