//! Pin and Unpin: a pinned note lists first. Each press is a save intent of its own
//! (`PATCH` with `pinned` alone); while one waits the note shows as that press left it.

use leptos::prelude::*;

use crate::api::Note;
use crate::door;
use crate::save::intent::IntentKind;
use crate::state::PageState;

/// Whether the page shows `note` pinned: as the latest unsaved pin or unpin of it left it,
/// or as the server has it.
pub fn shows_pinned(page: PageState, note: &Note) -> bool {
    page.queue.pinned_pending(&note.id).unwrap_or(note.pinned)
}

/// The Pin / Unpin button of one note. Disabled until the page is live: without
/// JavaScript nothing would send it, so it does not look clickable.
#[component]
pub fn PinButton(#[prop(into)] note: Signal<Note>) -> impl IntoView {
    let page = expect_context::<PageState>();
    let live = RwSignal::new(false);
    Effect::new(move |_| live.set(true));
    let pinned = move || note.with(|n| shows_pinned(page, n));
    let press = move |_| {
        let note = note.get_untracked();
        let pinned = shows_pinned(page, &note);
        door::change_note(
            page,
            IntentKind::Pin {
                note_id: note.id,
                title: note.title,
                pinned: !pinned,
            },
        );
    };
    view! {
        <button type="button" class="pin" disabled=move || !live.get() on:click=press>
            {move || if pinned() { "Unpin" } else { "Pin" }}
        </button>
    }
}
