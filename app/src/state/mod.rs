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
    pub editor: Editor,
    pub queue: SaveQueue,
}
