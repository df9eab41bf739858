//! The compose form: Title, Body (files pasted, dropped or attached go into it as
//! references), Save. Enter in the title submits, like a click.
//!
//! It is a real form (`POST /notes` with a key the server minted into it), so a press
//! before the page hydrated, or in a browser without JavaScript, still stores the note
//! once; after hydration a press becomes a save intent instead.

use leptos::prelude::*;

use crate::api::{
    BODY_MAX_CHARS, FORM_KEY_FIELD, FORM_OWNER_FIELD, FORM_PATH, TITLE_MAX_CHARS, grouped,
};
use crate::components::attachments::Attachments;
use crate::door;
use crate::state::PageState;

#[component]
pub fn Compose() -> impl IntoView {
    let page = expect_context::<PageState>();
    let editor = page.editor;
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        door::press_save(page, editor);
    };
    let title_chars = move || editor.title.with(|t| t.trim().chars().count());
    let body_chars = move || editor.body.with(|b| b.chars().count());
    view! {
        <form class="compose" method="post" action=FORM_PATH on:submit=on_submit aria-label="New note">
            <input type="hidden" name=FORM_KEY_FIELD value=form_key() />
            <input type="hidden" name=FORM_OWNER_FIELD value=form_owner() />
            <label for="note-title">"Title"</label>
            <input
                id="note-title"
                name="title"
                type="text"
                autocomplete="off"
                aria-describedby="title-count"
                bind:value=editor.title
            />
            <Counter id="title-count" count=Signal::derive(title_chars) max=TITLE_MAX_CHARS />
            <label for="note-body">"Body"</label>
            <textarea
                id="note-body"
                name="body"
                rows="6"
                aria-describedby="body-count"
                bind:value=editor.body
                on:paste=move |ev| door::attach_pasted(page, editor, "note-body", ev)
                on:drop=move |ev| door::attach_dropped(page, editor, "note-body", ev)
            ></textarea>
            <Counter id="body-count" count=Signal::derive(body_chars) max=BODY_MAX_CHARS />
            <Attachments editor textarea="note-body" input="note-attach" />
            <div class="actions">
                <button type="submit">"Save"</button>
                <p class="notice" role="alert" data-testid="notice">
                    {move || editor.notice.get()}
                </p>
            </div>
        </form>
    }
}

/// "1,234 / 100,000 characters", marked when over. Text is never cut to fit: a field
/// with a `maxlength` would silently drop the end of a pasted note.
#[component]
pub fn Counter(id: &'static str, count: Signal<usize>, max: usize) -> impl IntoView {
    view! {
        <p id=id class="count" class:over={move || count.get() > max}>
            {move || {
                let n = count.get();
                if n > max {
                    format!("{} / {} characters — {} too many", grouped(n), grouped(max), grouped(n - max))
                } else {
                    format!("{} / {} characters", grouped(n), grouped(max))
                }
            }}
        </p>
    }
}

/// The key the server minted for this render of the form.
fn form_key() -> String {
    #[cfg(feature = "ssr")]
    {
        use_context::<crate::ssr_context::FormKey>()
            .map(|k| k.0)
            .unwrap_or_default()
    }
    // In the browser the server's value is already in the page (hydration keeps it).
    #[cfg(not(feature = "ssr"))]
    {
        String::new()
    }
}

/// The person this render of the form is for: the server refuses the form if someone
/// else has signed in on this browser before it is sent.
fn form_owner() -> String {
    #[cfg(feature = "ssr")]
    {
        use_context::<crate::ssr_context::SignedInAs>()
            .map(|s| s.0.user_id)
            .unwrap_or_default()
    }
    // In the browser the server's value is already in the page (hydration keeps it).
    #[cfg(not(feature = "ssr"))]
    {
        String::new()
    }
}
