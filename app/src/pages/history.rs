//! `/notes/{id}/history`: the accepted writes to the note, newest first, 50 a page (*Older
//! versions* leads on), each linked to its own page (`version.rs`), which shows its text
//! and can restore it. The list carries no bodies: a page of every version's body grew
//! without bound for a note edited often (issue #60).

use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

use super::NoSuchNote;
use crate::api::{RevisionKind, RevisionSummary, RevisionsPage};
use crate::components::local_time::LocalTime;
use crate::components::notices::Notices;
use crate::components::status_line::StatusLine;
use crate::data;
use crate::links::urlencode;

#[component]
pub fn HistoryPage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let id = move || params.with(|p| p.get("id").unwrap_or_default());
    let before = move || query.with(|q| q.get("before"));
    let history = Resource::new(
        move || (id(), before()),
        |(id, before)| data::history(id, before),
    );
    view! {
        <StatusLine />
        <Notices />
        <Transition fallback=|| view! { <p class="muted">"Loading the history…"</p> }>
            {move || Suspend::new(async move {
                match history.await {
                    Ok(Some(page)) => view! { <History id=id() page /> }.into_any(),
                    Ok(None) => view! { <NoSuchNote /> }.into_any(),
                    Err(error) => view! { <p class="error">{error}</p> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn History(id: String, page: RevisionsPage) -> impl IntoView {
    // The newest version listed: on the first page, the note's title as it is now.
    let title = page
        .revisions
        .first()
        .map(|r| r.title.clone())
        .unwrap_or_default();
    // Numbered as the versions are, counting down from the newest on this page.
    let start = page.revisions.first().map_or(1, |r| r.version);
    let empty = page.revisions.is_empty();
    let items = page
        .revisions
        .into_iter()
        .map(|revision| view! { <RevisionItem id=id.clone() revision /> })
        .collect_view();
    let older = page.next.map(|cursor| {
        let href = format!("/notes/{id}/history?before={}", urlencode(&cursor));
        view! { <p class="pager"><a href=href rel="external">"Older versions"</a></p> }
    });
    view! {
        <section class="history" aria-labelledby="history-heading">
            <h2 id="history-heading">"History of “" {title} "”"</h2>
            <p><a href=format!("/notes/{id}") rel="external">"Back to the note"</a></p>
            {empty.then(|| view! { <p class="muted empty">"No earlier versions."</p> })}
            <ol class="notes revisions" reversed start=start>{items}</ol>
            {older}
        </section>
    }
}

#[component]
fn RevisionItem(id: String, revision: RevisionSummary) -> impl IntoView {
    let href = format!("/notes/{id}/history/{}", revision.version);
    view! {
        <li class="note revision" data-version=revision.version>
            <p class="meta">
                <a href=href rel="external"><strong>{format!("Version {}", revision.version)}</strong></a>
                " · " {kind_text(revision.kind)} " · " <LocalTime at=revision.created_at />
            </p>
            <p class="revision-title">{revision.title}</p>
        </li>
    }
}

/// What kind of write made a version, as the history says it.
pub fn kind_text(kind: RevisionKind) -> &'static str {
    match kind {
        RevisionKind::Create => "Created",
        RevisionKind::Edit => "Edited",
        RevisionKind::Merge => "Edited (merged with changes from elsewhere)",
        RevisionKind::Trash => "Moved to the trash",
        RevisionKind::Restore => "Restored from the trash",
        RevisionKind::Pin => "Pinned",
        RevisionKind::Unpin => "Unpinned",
        RevisionKind::TagRename => "A tag renamed",
    }
}
