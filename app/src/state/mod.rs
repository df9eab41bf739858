//! The page's state as signals, one type per thing it holds: the unsaved queue, the notes
//! saved that the page knows of, the notices, the connection (network, who is signed in,
//! the ticking clock), the two editors, what the change feed told of other devices'
//! writes, and the files being uploaded. Data flows one way — storage (and the feed) →
//! core → these signals → the view; the view's events go back through one door
//! (`crate::door`), never by writing these directly.

pub mod connection;
pub mod editor;
pub mod feed;
pub mod feed_cursor;
pub mod import;
pub mod known_notes;
pub mod notices;
pub mod queue;
pub mod uploads;

use connection::Connection;
use editor::Editor;
use feed::Feed;
use known_notes::KnownNotes;
use notices::Notices;
use queue::SaveQueue;
use uploads::Uploads;

/// Everything the page's components and the browser glue share (provided through
/// context).
#[derive(Clone, Copy, Default)]
pub struct PageState {
    /// The compose form's editor.
    pub editor: Editor,
    /// The editor of the note page (its target is set when the page opens a note).
    pub note_editor: Editor,
    /// The unsaved intents.
    pub queue: SaveQueue,
    /// The notes saved that the page knows of.
    pub notes: KnownNotes,
    /// Messages about finished writes.
    pub notices: Notices,
    /// Online, who is signed in, and the clock.
    pub connection: Connection,
    /// Other devices' writes, as the change feed told of them.
    pub feed: Feed,
    /// The files added to notes and how their uploads stand.
    pub uploads: Uploads,
}

impl PageState {
    /// Both editors, for what concerns every draft (a save finished elsewhere).
    pub fn editors(&self) -> [Editor; 2] {
        [self.editor, self.note_editor]
    }
}
