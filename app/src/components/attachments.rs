//! Under an editor's body: "Attach file" (a real file input, so the keyboard and screen
//! readers reach it like any other field) and the files the text refers to, each with how
//! its upload stands — a progress bar while it goes. Pasting or dropping files on the
//! body does the same as picking them (the body's handlers, in the editors).

use leptos::prelude::*;

use crate::door;
use crate::state::PageState;
use crate::state::editor::Editor;

/// The file picker and the uploads of the files in `editor`'s text. `textarea` is the
/// id of the body, where the references go; `input` the picker's id.
#[component]
pub fn Attachments(editor: Editor, textarea: &'static str, input: &'static str) -> impl IntoView {
    let page = expect_context::<PageState>();
    let shown = move || editor.body.with(|text| page.uploads.referred_by(text));
    view! {
        <div class="attach">
            <label for=input class="attach-label">"Attach file"</label>
            <input
                id=input
                type="file"
                multiple
                on:change=move |ev| door::attach_picked(page, editor, textarea, ev)
            />
            <ul class="uploads" aria-live="polite" data-testid="uploads">
                <For
                    each=shown
                    key=|upload| (upload.sha256.clone(), upload.label())
                    children=|upload| {
                        let label = upload.label();
                        let bar = upload.progress().map(|percent| {
                            view! {
                                <progress max="100" value=percent aria-label=label.clone()></progress>
                            }
                        });
                        view! {
                            <li data-file=upload.sha256.clone()>
                                <span class="upload-label">{label.clone()}</span>
                                {bar}
                            </li>
                        }
                    }
                />
            </ul>
        </div>
    }
}
