//! How a search form is sent once the page is live: the router shows the results page at
//! once, in the browser (no page load; its results come from the server, or from the
//! offline copy with no network — `browser::search_online`). Before hydration, and with
//! JavaScript off, the form stays what it is: a plain GET to the search page.

use leptos::ev::SubmitEvent;
use leptos::html::Input;
use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

use crate::links::search_href;

/// The submit handler of a search form whose box is `input`.
pub fn searches_here(input: NodeRef<Input>) -> impl Fn(SubmitEvent) + 'static {
    let navigate = use_navigate();
    move |event: SubmitEvent| {
        let Some(q) = input.get_untracked().map(|box_| box_.value()) else {
            return;
        };
        event.prevent_default();
        navigate(&search_href(&q), Default::default());
    }
}
