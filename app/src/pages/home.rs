//! `/`: compose, what is not yet saved, the notes (`?before=` pages back).

use leptos::prelude::*;

use crate::components::compose::Compose;
use crate::components::notes_list::SavedNotes;
use crate::components::notices::Notices;
use crate::components::status_line::StatusLine;
use crate::components::unsaved_list::UnsavedNotes;

#[component]
pub fn HomePage() -> impl IntoView {
    view! {
        <StatusLine />
        <Notices />
        <Compose />
        <UnsavedNotes />
        <SavedNotes />
    }
}
