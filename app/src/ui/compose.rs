//! The compose form: Title, Body, Save. Enter in the title submits, like a click.

use leptos::prelude::*;

use super::save_queue::SaveQueue;
use crate::api::{BODY_MAX_CHARS, TITLE_MAX_CHARS};

#[component]
pub fn Compose() -> impl IntoView {
    let queue = expect_context::<SaveQueue>();
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        queue.press_save();
    };
    view! {
        <form class="compose" on:submit=on_submit aria-label="New note">
            <label for="note-title">"Title"</label>
            <input
                id="note-title"
                name="title"
                type="text"
                autocomplete="off"
                maxlength=TITLE_MAX_CHARS.to_string()
                bind:value=queue.title
            />
            <label for="note-body">"Body"</label>
            <textarea
                id="note-body"
                name="body"
                rows="6"
                maxlength=BODY_MAX_CHARS.to_string()
                bind:value=queue.body
            ></textarea>
            <div class="actions">
                <button type="submit">"Save"</button>
                <p class="notice" role="alert">
                    {move || queue.notice.get()}
                </p>
            </div>
        </form>
    }
}
