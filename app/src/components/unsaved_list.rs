//! The notes not yet saved, each with its state in words: queued, sending, retrying in
//! N s, waiting — Retry now, failed: reason — Edit / Discard. An entry this version
//! cannot read is listed too, with what can be done about it.

use leptos::prelude::*;

use super::note_card::excerpt;
use crate::door;
use crate::save::intent::{IntentKind, IntentState, SaveIntent, Unreadable};
use crate::state::PageState;
use crate::state::queue::QueueEntry;

#[component]
pub fn UnsavedNotes() -> impl IntoView {
    let page = expect_context::<PageState>();
    let count = move || page.queue.entries.with(Vec::len);
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
                        each=move || page.queue.entries.get()
                        key=|entry| entry.id().to_owned()
                        children=move |entry| view! { <PendingItem id=entry.id().to_owned() /> }
                    />
                </ul>
            </section>
        </Show>
    }
}

/// What an intent is about, in words: the title of a new note, or the change to a note.
fn headline(intent: &SaveIntent) -> String {
    let (title, _) = intent.text();
    match &intent.kind {
        IntentKind::Create { .. } => title.to_owned(),
        IntentKind::Edit { .. } => format!("Edit of “{title}”"),
        IntentKind::Trash { .. } => format!("Move “{title}” to the trash"),
        IntentKind::Restore { .. } => format!("Restore “{title}” from the trash"),
        IntentKind::Purge { .. } => format!("Delete “{title}” for good"),
        IntentKind::Pin { pinned: true, .. } => format!("Pin “{title}”"),
        IntentKind::Pin { pinned: false, .. } => format!("Unpin “{title}”"),
        IntentKind::RenameTag { from, to } => format!("Rename #{from} to #{to}"),
    }
}

/// One unsaved entry with its state and what can be done about it.
#[component]
pub fn PendingItem(id: String) -> impl IntoView {
    let page = expect_context::<PageState>();
    let entry = {
        let id = id.clone();
        Memo::new(move |_| {
            page.queue
                .entries
                .with(|all| all.iter().find(|e| e.id() == id).cloned())
        })
    };
    move || match entry.get() {
        Some(QueueEntry::Intent(intent)) => {
            let title = headline(&intent);
            let body = excerpt(intent.text().1);
            let key = intent.key.clone();
            let data_key = key.clone();
            // An edit is changed on its note's page (the only page with that editor).
            let edit_at = match &intent.kind {
                IntentKind::Create { .. } => Some(None),
                IntentKind::Edit { note_id, .. } => {
                    Some(Some(format!("/notes/{note_id}?edit={}", intent.key)))
                }
                _ => None,
            };
            view! {
                <li class="note pending" data-intent-key=data_key>
                    <h3 class="note-title">{title}</h3>
                    <p class="note-excerpt">{body}</p>
                    <p class="status">
                        <span class="badge">"not yet saved"</span>
                        " "
                        <IntentStatus key state=intent.state edit_at />
                    </p>
                </li>
            }
            .into_any()
        }
        Some(QueueEntry::Unreadable {
            storage_key,
            raw,
            why,
        }) => view! { <UnreadableItem storage_key raw why /> }.into_any(),
        None => ().into_any(),
    }
}

#[component]
fn IntentStatus(key: String, state: IntentState, edit_at: Option<Option<String>>) -> impl IntoView {
    let page = expect_context::<PageState>();
    match state {
        IntentState::Queued => view! { <span class="state">"queued"</span> }.into_any(),
        IntentState::Sending => view! { <span class="state">"sending"</span> }.into_any(),
        IntentState::Retrying { at_ms, cause } => {
            let seconds = move || ((at_ms - page.connection.now_ms.get()) / 1000.0).ceil().max(0.0);
            match cause {
                Some(cause) => view! {
                    <span class="state">{cause.sentence()} "; next try in " {seconds} " s"</span>
                }
                .into_any(),
                None => view! { <span class="state">"retrying in " {seconds} " s"</span> }.into_any(),
            }
        }
        IntentState::Waiting { cause } => view! {
            <span class="state">"waiting — " {cause.sentence()}</span>
            " "
            <button type="button" class="link" on:click=move |_| door::retry_now(page)>"Retry now"</button>
        }
        .into_any(),
        IntentState::SignedOut => {
            let why = move || {
                if page.connection.someone_else_signed_in.get() {
                    "waiting — someone else is signed in on this browser now. "
                } else {
                    "waiting — your session ended. "
                }
            };
            view! {
                <span class="state">{why}</span>
                <a href=sign_in_here() rel="external">"Sign in to send it"</a>
            }
            .into_any()
        }
        IntentState::Failed { problem } => {
            let edit = key.clone();
            let edit_button = match edit_at {
                // On the page where its editor is: load it there.
                Some(None) => Some(view! {
                    " "
                    <button type="button" class="link" on:click=move |_| door::edit(page, &edit)>"Edit"</button>
                }.into_any()),
                Some(Some(href)) => Some(view! { " " <a href=href rel="external">"Edit"</a> }.into_any()),
                None => None,
            };
            view! {
                <span class="state failed">"failed: " {problem.detail}</span>
                {edit_button}
                " "
                <button type="button" class="link" on:click=move |_| door::discard(page, &key)>"Discard"</button>
            }
            .into_any()
        }
    }
}

/// An entry that could not be read: never skipped silently. A newer version's intent is
/// sent by that version (reload); a damaged one shows its raw text so nothing typed is
/// lost, and can be discarded.
#[component]
fn UnreadableItem(storage_key: String, raw: String, why: Unreadable) -> impl IntoView {
    let page = expect_context::<PageState>();
    let action = match why {
        Unreadable::Newer { .. } => view! {
            <span class="state">"saved by a newer version of oncenote — "</span>
            <button type="button" class="link" on:click=|_| reload()>"Reload to send it"</button>
        }
        .into_any(),
        Unreadable::Damaged { reason } => {
            let id = storage_key.clone();
            view! {
                <span class="state failed">"cannot be read: " {reason}</span>
                " "
                <button type="button" class="link" on:click=move |_| door::discard(page, &id)>"Discard"</button>
            }
            .into_any()
        }
    };
    view! {
        <li class="note pending unreadable" data-storage-key=storage_key>
            <h3 class="note-title">"A note this page cannot read"</h3>
            <details>
                <summary>"What was stored"</summary>
                <pre class="raw">{raw}</pre>
            </details>
            <p class="status"><span class="badge">"not yet saved"</span> " " {action}</p>
        </li>
    }
}

/// The sign-in page, coming back to this page.
pub fn sign_in_here() -> String {
    #[cfg(feature = "hydrate")]
    if let Some(location) = web_sys::window().map(|w| w.location()) {
        let here = format!(
            "{}{}",
            location.pathname().unwrap_or_default(),
            location.search().unwrap_or_default()
        );
        return format!("/sign-in?next={}", crate::links::urlencode(&here));
    }
    "/sign-in".to_owned()
}

fn reload() {
    #[cfg(feature = "hydrate")]
    if let Some(window) = web_sys::window() {
        let _ = window.location().reload();
    }
}
