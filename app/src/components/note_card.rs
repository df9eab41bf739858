//! A note in a list: its title (a link to it), whether it is pinned, the start of its
//! body, its tags (links), when it was written, and Pin / Unpin.

use leptos::prelude::*;

use super::local_time::LocalTime;
use super::pin_button::{PinButton, shows_pinned};
use super::tag_chips::TagChips;
use crate::api::{Note, referred_files};
use crate::state::PageState;

/// How much of a body a list shows.
const EXCERPT_CHARS: usize = 160;

#[component]
pub fn NoteCard(note: Note) -> impl IntoView {
    let page = expect_context::<PageState>();
    let href = format!("/notes/{}", note.id);
    let pinned = {
        let note = note.clone();
        move || shows_pinned(page, &note)
    };
    view! {
        <li class="note" class:pinned=pinned.clone() data-note-id=note.id.clone()>
            <h3 class="note-title">
                <a href=href rel="external">{note.title.clone()}</a>
                <Show when=pinned.clone()>
                    " " <span class="pin-mark">"Pinned"</span>
                </Show>
            </h3>
            <p class="note-excerpt">{excerpt(&without_file_addresses(&note.body))}</p>
            <TagChips tags=note.tags.clone() />
            <div class="card-foot">
                <LocalTime at=note.written_at.clone() />
                <PinButton note=Signal::stored(note.clone()) />
            </div>
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

/// A body as a list shows it: a reference to one of the person's files keeps its name
/// (`![photo]`, `[minutes.pdf]`) without the 64-digit address after it.
pub fn without_file_addresses(body: &str) -> String {
    referred_files(body)
        .iter()
        .fold(body.to_owned(), |text, sha| {
            text.replace(&format!("](/files/{sha})"), "]")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_shows_a_files_name_without_its_address() {
        let sha = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        let body = format!(
            "The plan:\n![whiteboard](/files/{sha})\nand [notes.pdf](/files/{sha}) /files/{sha}"
        );
        assert_eq!(
            without_file_addresses(&body),
            format!("The plan:\n![whiteboard]\nand [notes.pdf] /files/{sha}")
        );
        assert_eq!(without_file_addresses("no files"), "no files");
    }

    #[test]
    fn an_excerpt_cuts_long_bodies_at_a_character_boundary() {
        let body = "é".repeat(200);
        let cut = excerpt(&body);
        assert_eq!(cut.chars().count(), EXCERPT_CHARS + 1);
        assert!(cut.ends_with('…'));
        assert_eq!(excerpt("short"), "short");
    }
}
