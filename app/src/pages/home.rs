//! `/`: compose, what is not yet saved, what is saved.

use leptos::prelude::*;

use crate::components::compose::Compose;
use crate::components::notes_list::SavedNotes;
use crate::components::status_line::StatusLine;
use crate::components::unsaved_list::UnsavedNotes;

#[component]
pub fn HomePage() -> impl IntoView {
    view! {
        <StatusLine />
        <Compose />
        <UnsavedNotes />
        <SavedNotes />
    }
}
