//! One honest line: online or offline, and how many notes are not yet saved.

use leptos::prelude::*;

use crate::state::PageState;

#[component]
pub fn StatusLine() -> impl IntoView {
    let page = expect_context::<PageState>();
    let unsaved = move || page.queue.entries.with(Vec::len);
    view! {
        <p class="status-line" role="status" data-testid="status-line">
            <span class=move || if page.connection.online.get() { "dot online" } else { "dot offline" }></span>
            {move || if page.connection.online.get() { "Online" } else { "Offline" }}
            " · "
            {move || match unsaved() {
                0 => "every note is saved".to_owned(),
                n => format!("{n} not yet saved"),
            }}
        </p>
    }
}
