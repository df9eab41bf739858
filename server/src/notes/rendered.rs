//! A note told about alone — read by its id, or the note a write's answer is about —
//! carries its body rendered (PROTOCOL.md v3, Markdown: `html`); lists and search results
//! do not. Rendering is a pure function of the body, so an answer kept with its key and
//! replayed later still holds the same bytes.

use app::api::Note;

use crate::text::markdown;

/// The note with `html`: its body rendered from Markdown and sanitized.
pub fn with_html(note: &Note) -> Note {
    Note {
        html: Some(markdown::render(&note.body)),
        ..note.clone()
    }
}
