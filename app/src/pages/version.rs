//! `/notes/{id}/history/{version}`: one version of a note — how and when it was written,
//! and the title and text it left (plain, as written) — and, for an earlier version than
//! the note's, *Restore this version*: an edit back to that text, made from the note's
//! current version. The history lists versions without their text (`history.rs`); a
//! version's text is read here, one at a time.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use super::NoSuchNote;
use super::history::kind_text;
use crate::api::{Note, Revision};
use crate::components::local_time::LocalTime;
use crate::components::notices::Notices;
use crate::components::status_line::StatusLine;
use crate::data;
use crate::door;
use crate::state::PageState;

#[component]
pub fn VersionPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.with(|p| p.get("id").unwrap_or_default());
    let version = move || params.with(|p| p.get("version").unwrap_or_default());
    let revision = Resource::new(
        move || (id(), version()),
        |(id, version)| data::revision(id, version),
    );
    // The note as it is now: the version a restore is made from, and its title.
    let note = Resource::new(id, data::note);
    view! {
        <StatusLine />
        <Notices />
        <Transition fallback=|| view! { <p class="muted">"Loading the version…"</p> }>
            {move || Suspend::new(async move {
                let (revision, note) = (revision.await, note.await);
                match (revision, note) {
                    (Ok(Some(revision)), Ok(Some(note))) => view! { <Version note revision /> }.into_any(),
                    (Ok(None), Ok(Some(_))) => view! { <NoSuchVersion id=id() /> }.into_any(),
                    (_, Ok(None)) => view! { <NoSuchNote /> }.into_any(),
                    (Err(error), _) | (_, Err(error)) => view! { <p class="error">{error}</p> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn Version(note: Note, revision: Revision) -> impl IntoView {
    let page = expect_context::<PageState>();
    let id = note.id.clone();
    let restore = (revision.version < note.version).then(|| {
        let (id, rendered_at) = (id.clone(), note.version);
        let (title, body) = (revision.title.clone(), revision.body.clone());
        let restored = RwSignal::new(false);
        view! {
            <button type="button" disabled=move || restored.get() on:click=move |_| {
                // From the newest version this page knows: the one it was rendered with, or
                // a newer one this visit learned of since (the change feed, a save here).
                let current = page
                    .notes
                    .latest(&id)
                    .map_or(rendered_at, |newer| newer.version.max(rendered_at));
                door::restore_version(page, id.clone(), current, title.clone(), body.clone());
                restored.set(true);
            }>
                {move || if restored.get() { "Restoring this version…" } else { "Restore this version" }}
            </button>
        }
    });
    view! {
        <article class="version" aria-labelledby="version-heading">
            <h2 id="version-heading">{format!("Version {} of “{}”", revision.version, note.title)}</h2>
            <p class="meta">{kind_text(revision.kind)} " · " <LocalTime at=revision.created_at /></p>
            <p>
                <a href=format!("/notes/{id}/history") rel="external">"Back to the history"</a>
                " · "
                <a href=format!("/notes/{id}") rel="external">"The note as it is now"</a>
            </p>
            <h3 class="revision-title">{revision.title}</h3>
            <div class="note-body" data-testid="version-body">{revision.body}</div>
            {restore}
        </article>
    }
}

/// What the page says when the note has no such version.
#[component]
fn NoSuchVersion(id: String) -> impl IntoView {
    view! {
        <section class="missing">
            <h2>"There is no such version"</h2>
            <p><a href=format!("/notes/{id}/history") rel="external">"The note's history"</a></p>
        </section>
    }
}
