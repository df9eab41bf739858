//! `/trash`: notes moved to the trash, latest first, each with Restore and Delete for good.
//! The trash empties itself of notes kept there longer than the server's retention.

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use super::note::DeleteForGood;
use crate::api::Note;
use crate::components::local_time::LocalTime;
use crate::components::notices::Notices;
use crate::components::status_line::StatusLine;
use crate::data;
use crate::door;
use crate::links::urlencode;
use crate::save::intent::IntentKind;
use crate::state::PageState;

#[component]
pub fn TrashPage() -> impl IntoView {
    let query = use_query_map();
    let cursor = move || query.with(|q| q.get("before"));
    let trash = Resource::new(cursor, data::trash);
    view! {
        <StatusLine />
        <Notices />
        <section class="trash" aria-labelledby="trash-heading">
            <h2 id="trash-heading">"Trash"</h2>
            <Transition fallback=|| view! { <p class="muted">"Loading the trash…"</p> }>
                {move || Suspend::new(async move {
                    match trash.await {
                        Ok(page) => view! { <TrashList loaded=page.notes next=page.next /> }.into_any(),
                        Err(error) => view! { <p class="error">{error}</p> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn TrashList(loaded: Vec<Note>, next: Option<String>) -> impl IntoView {
    let known_notes = expect_context::<PageState>().notes;
    // What this visit knows better: notes restored or deleted for good meanwhile.
    let all = Memo::new(move |_| {
        loaded
            .iter()
            .map(|note| match known_notes.latest(&note.id) {
                Some(newer) if newer.version > note.version => newer,
                _ => note.clone(),
            })
            .filter(|n| n.trashed_at.is_some() && !known_notes.is_gone(&n.id))
            .collect::<Vec<_>>()
    });
    let older = next.map(|cursor| {
        let href = format!("/trash?before={}", urlencode(&cursor));
        view! { <p class="pager"><a href=href rel="external">"Older"</a></p> }
    });
    view! {
        <Show when=move || all.with(|n| !n.is_empty()) fallback=|| view! { <p class="muted empty">"The trash is empty."</p> }>
            <ul class="notes" data-testid="trash-notes">
                <For each=move || all.get() key=|n| (n.id.clone(), n.version) children=|note| view! { <TrashItem note /> } />
            </ul>
        </Show>
        {older}
    }
}

#[component]
fn TrashItem(note: Note) -> impl IntoView {
    let page = expect_context::<PageState>();
    let restoring = RwSignal::new(false);
    let (for_restore, for_purge) = (note.clone(), note.clone());
    view! {
        <li class="note" data-note-id=note.id.clone()>
            <h3 class="note-title"><a href=format!("/notes/{}", note.id) rel="external">{note.title.clone()}</a></h3>
            <p class="meta">"Moved to the trash " <LocalTime at=note.trashed_at.clone().unwrap_or_default() /></p>
            <div class="note-actions">
                <button type="button" disabled=move || restoring.get() on:click=move |_| {
                    door::change_note(page, IntentKind::Restore {
                        note_id: for_restore.id.clone(),
                        title: for_restore.title.clone(),
                    });
                    restoring.set(true);
                }>{move || if restoring.get() { "Restoring…" } else { "Restore" }}</button>
                " "
                <DeleteForGood note=for_purge />
            </div>
        </li>
    }
}
