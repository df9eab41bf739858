//! A note in a list: its title (a link to it), the start of its body, when it was written.

use leptos::prelude::*;

use super::local_time::LocalTime;
use crate::api::Note;

/// How much of a body a list shows.
const EXCERPT_CHARS: usize = 160;

#[component]
pub fn NoteCard(note: Note) -> impl IntoView {
    let href = format!("/notes/{}", note.id);
    view! {
        <li class="note" data-note-id=note.id.clone()>
            <h3 class="note-title"><a href=href rel="external">{note.title.clone()}</a></h3>
            <p class="note-excerpt">{excerpt(&note.body)}</p>
            <LocalTime at=note.written_at.clone() />
        </li>
    }
}

/// The start of a body, cut at a character boundary.
pub fn excerpt(body: &str) -> String {
    let mut chars = body.chars();
    let start: String = chars.by_ref().take(EXCERPT_CHARS).collect();
    if chars.next().is_some() {
        format!("{start}…")
    } else {
        start
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_excerpt_cuts_long_bodies_at_a_character_boundary() {
        let body = "é".repeat(200);
        let cut = excerpt(&body);
        assert_eq!(cut.chars().count(), EXCERPT_CHARS + 1);
        assert!(cut.ends_with('…'));
        assert_eq!(excerpt("short"), "short");
    }
}
