//! The page's state as signals: what the unsaved queue holds and what the editor holds.
//! Data flows one way — storage → core → these signals → the view; the view's events go
//! back through one door (`crate::door`), never by writing these directly.

pub mod editor;
pub mod queue;

use editor::Editor;
use queue::SaveQueue;

/// Everything the page's components and the browser glue share.
#[derive(Clone, Copy, Default)]
pub struct PageState {
    /// The compose form's editor.
    pub editor: Editor,
    /// The editor of the note page (its target is set when the page opens a note).
    pub note_editor: Editor,
    pub queue: SaveQueue,
}

impl PageState {
    /// Both editors, for what concerns every draft (a save finished elsewhere).
    pub fn editors(&self) -> [Editor; 2] {
        [self.editor, self.note_editor]
    }
}
