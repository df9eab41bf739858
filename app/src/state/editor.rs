//! The editor: the draft being written, how it relates to an intent, and the message
//! about the last press.

use leptos::prelude::*;

use crate::save::press::Link;

#[derive(Clone, Copy)]
pub struct Editor {
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
    pub fn new() -> Self {
        Self {
            title: RwSignal::new(String::new()),
            body: RwSignal::new(String::new()),
            notice: RwSignal::new(None),
            link: RwSignal::new(None),
        }
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
            self.title.set(String::new());
            self.body.set(String::new());
        }
    }
}
