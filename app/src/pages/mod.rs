//! One file per page (route): home, a note, its history and each of its versions, the
//! trash, search, the tags and one tag.

pub mod account_forms;
pub mod history;
pub mod home;
pub mod note;
pub mod search;
pub mod tag;
pub mod tags;
pub mod trash;
pub mod version;

use leptos::prelude::*;

/// What a page says when its note does not exist (or is not the reader's).
#[component]
pub fn NoSuchNote() -> impl IntoView {
    view! {
        <section class="missing">
            <h2>"There is no such note"</h2>
            <p>"It may have been deleted for good. " <a href="/" rel="external">"Back to your notes"</a></p>
        </section>
    }
}
