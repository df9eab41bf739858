//! The notes not yet saved, each with its state in words: queued, sending, retrying in
//! N s, waiting — Retry now, failed: reason — Edit / Discard.

use leptos::prelude::*;

use super::notes_list::excerpt;
use super::save_queue::SaveQueue;
use crate::save::intent::IntentState;

#[component]
pub fn UnsavedNotes() -> impl IntoView {
    let queue = expect_context::<SaveQueue>();
    let count = move || queue.intents.with(Vec::len);
    view! {
        <Show when=move || { count() > 0 }>
            <section class="unsaved" aria-labelledby="unsaved-heading">
                <h2 id="unsaved-heading">
                    {move || match count() {
                        1 => "1 note not yet saved".to_owned(),
                        n => format!("{n} notes not yet saved"),
                    }}
                </h2>
                <ul class="notes" data-testid="unsaved-notes">
                    <For
                        each=move || queue.intents.get()
                        key=|intent| intent.key.clone()
                        children=move |intent| view! { <UnsavedItem key=intent.key /> }
                    />
                </ul>
            </section>
        </Show>
    }
}

#[component]
fn UnsavedItem(key: String) -> impl IntoView {
    let queue = expect_context::<SaveQueue>();
    let intent = {
        let key = key.clone();
        Memo::new(move |_| {
            queue
                .intents
                .with(|all| all.iter().find(|i| i.key == key).cloned())
        })
    };
    let title = move || intent.get().map(|i| i.title).unwrap_or_default();
    let body = move || intent.get().map(|i| excerpt(&i.body)).unwrap_or_default();
    let state = move || intent.get().map(|i| i.state);
    let key_for_edit = key.clone();
    let key_for_discard = key.clone();
    view! {
        <li class="note pending" data-intent-key=key.clone()>
            <h3 class="note-title">{title}</h3>
            <p class="note-excerpt">{body}</p>
            <p class="status">
                <span class="badge">"not yet saved"</span>
                " "
                {move || match state() {
                    Some(IntentState::Queued) => view! { <span class="state">"queued"</span> }.into_any(),
                    Some(IntentState::Sending) => view! { <span class="state">"sending"</span> }.into_any(),
                    Some(IntentState::Retrying { at_ms }) => {
                        let seconds = move || ((at_ms - queue.now_ms.get()) / 1000.0).ceil().max(0.0);
                        view! { <span class="state">"retrying in " {seconds} " s"</span> }.into_any()
                    }
                    Some(IntentState::Waiting { reason }) => view! {
                        <span class="state" title=reason.clone()>"waiting — " {reason.clone()}</span>
                        " "
                        <button type="button" class="link" on:click=move |_| queue.drain()>"Retry now"</button>
                    }.into_any(),
                    Some(IntentState::Failed { problem }) => {
                        let edit = key_for_edit.clone();
                        let discard = key_for_discard.clone();
                        view! {
                            <span class="state failed">"failed: " {problem.detail.clone()}</span>
                            " "
                            <button type="button" class="link" on:click=move |_| queue.edit(&edit)>"Edit"</button>
                            " "
                            <button type="button" class="link" on:click=move |_| queue.discard(&discard)>"Discard"</button>
                        }.into_any()
                    }
                    None => ().into_any(),
                }}
            </p>
        </li>
    }
}
