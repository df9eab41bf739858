//! `/notes/{id}/history`: every accepted write to the note, oldest first, each with the
//! title and body it left; any earlier version can be restored (as a new edit).

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use super::NoSuchNote;
use crate::api::{Revision, RevisionKind};
use crate::components::local_time::LocalTime;
use crate::components::notices::Notices;
use crate::components::status_line::StatusLine;
use crate::data;
use crate::door;
use crate::state::PageState;

#[component]
pub fn HistoryPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.with(|p| p.get("id").unwrap_or_default());
    let revisions = Resource::new(id, data::revisions);
    view! {
        <StatusLine />
        <Notices />
        <Transition fallback=|| view! { <p class="muted">"Loading the history…"</p> }>
            {move || Suspend::new(async move {
                match revisions.await {
                    Ok(Some(revisions)) => view! { <History id=id() revisions /> }.into_any(),
                    Ok(None) => view! { <NoSuchNote /> }.into_any(),
                    Err(error) => view! { <p class="error">{error}</p> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn History(id: String, revisions: Vec<Revision>) -> impl IntoView {
    let current = revisions.last().map(|r| r.version).unwrap_or(1);
    let title = revisions
        .last()
        .map(|r| r.title.clone())
        .unwrap_or_default();
    let items = revisions
        .into_iter()
        .rev()
        .map(|revision| view! { <RevisionItem id=id.clone() revision current /> })
        .collect_view();
    view! {
        <section class="history" aria-labelledby="history-heading">
            <h2 id="history-heading">"History of “" {title} "”"</h2>
            <p><a href=format!("/notes/{id}") rel="external">"Back to the note"</a></p>
            <ol class="notes revisions" reversed>{items}</ol>
        </section>
    }
}

#[component]
fn RevisionItem(id: String, revision: Revision, current: i64) -> impl IntoView {
    let page = expect_context::<PageState>();
    let what = match revision.kind {
        RevisionKind::Create => "Created",
        RevisionKind::Edit => "Edited",
        RevisionKind::Merge => "Edited (merged with changes from elsewhere)",
        RevisionKind::Trash => "Moved to the trash",
        RevisionKind::Restore => "Restored from the trash",
        RevisionKind::Pin => "Pinned",
        RevisionKind::Unpin => "Unpinned",
        RevisionKind::TagRename => "A tag renamed",
    };
    let restore = (revision.version < current).then(|| {
        let (title, body) = (revision.title.clone(), revision.body.clone());
        let restored = RwSignal::new(false);
        view! {
            <button type="button" class="link" disabled=move || restored.get() on:click=move |_| {
                door::restore_version(page, id.clone(), current, title.clone(), body.clone());
                restored.set(true);
            }>
                {move || if restored.get() { "Restoring this version…" } else { "Restore this version" }}
            </button>
        }
    });
    view! {
        <li class="note revision" data-version=revision.version>
            <p class="meta">
                <strong>{format!("Version {}", revision.version)}</strong>
                " · " {what} " · " <LocalTime at=revision.created_at.clone() />
            </p>
            <details>
                <summary>{revision.title.clone()}</summary>
                <div class="note-body">{revision.body.clone()}</div>
            </details>
            {restore}
        </li>
    }
}
