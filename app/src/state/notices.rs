//! Messages about finished writes (a conflict copy, a merge, a move to the trash).

use leptos::prelude::*;

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

/// The notices the page shows, oldest first.
#[derive(Clone, Copy)]
pub struct Notices {
    pub all: RwSignal<Vec<Notice>>,
}

impl Default for Notices {
    fn default() -> Self {
        Self::new()
    }
}

impl Notices {
    pub fn new() -> Self {
        Self {
            all: RwSignal::new(Vec::new()),
        }
    }

    /// Shows a notice (replacing an older one about the same write).
    pub fn notify(&self, notice: Notice) {
        self.all.update(|all| {
            all.retain(|n| n.id != notice.id);
            all.push(notice);
        });
    }

    pub fn dismiss(&self, id: &str) {
        self.all.update(|all| all.retain(|n| n.id != id));
    }
}
