//! The home page's list (and a tag's): a page of notes from the server (pinned first,
//! then newest first, notes in the trash left out), with what this visit knows better
//! folded in — newer versions from answers, notes created since the page was rendered,
//! pins waiting to be sent, notes moved to the trash or deleted meanwhile taken out — and
//! a link to older notes. Rendered on the server, so it reads with JavaScript off.

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use super::note_card::NoteCard;
use super::pin_button::shows_pinned;
use crate::api::{Note, carries_tag};
use crate::data;
use crate::links::urlencode;
use crate::state::PageState;

#[component]
pub fn SavedNotes() -> impl IntoView {
    let query = use_query_map();
    let cursor = move || query.with(|q| q.get("before"));
    let notes = Resource::new(cursor, data::notes);
    view! {
        <section class="saved" aria-labelledby="saved-heading">
            <h2 id="saved-heading">"Notes"</h2>
            <Transition fallback=|| view! { <p class="muted">"Loading notes…"</p> }>
                {move || Suspend::new(async move {
                    let first_page = cursor().is_none();
                    match notes.await {
                        Ok(page) => view! { <NotesList loaded=page.notes first_page next=page.next pages_at="/".to_owned() /> }.into_any(),
                        Err(error) => view! { <p class="error">{error}</p> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

/// A page of notes, with what this visit knows better folded in; `tag` when it lists the
/// notes of one tag (and those nested under it); `pages_at` the address the link to older
/// notes adds its cursor to.
#[component]
pub fn NotesList(
    loaded: Vec<Note>,
    first_page: bool,
    next: Option<String>,
    pages_at: String,
    #[prop(optional)] tag: Option<String>,
) -> impl IntoView {
    let page = expect_context::<PageState>();
    let known_notes = page.notes;
    // The browser keeps what the server sent, so the list (and the notes cache made from
    // it) still has these notes when the page is opened offline.
    let rendered = loaded.clone();
    Effect::new(move |_| known_notes.learn_notes(rendered.clone()));
    let newest_loaded = loaded.first().map(|n| n.created_at.clone());
    let all = Memo::new(move |_| {
        // The newest version this page knows of each note, whole or from the cache.
        let known = |id: &str| {
            let whole = known_notes.latest(id);
            let cached = known_notes
                .cached
                .with(|c| c.iter().find(|n| n.id == id).cloned());
            match (whole, cached) {
                (Some(w), Some(c)) if c.version > w.version => Some(c),
                (Some(w), _) => Some(w),
                (None, c) => c,
            }
        };
        let mut notes: Vec<Note> = loaded
            .iter()
            .map(|note| match known(&note.id) {
                Some(newer) if newer.version > note.version => newer,
                _ => note.clone(),
            })
            .collect();
        if first_page {
            // Notes created since the server rendered this page (here or in another tab).
            let since = newest_loaded.clone().unwrap_or_default();
            let newer = |all: &Vec<Note>, notes: &mut Vec<Note>| {
                for note in all {
                    if note.created_at > since
                        && tag.as_deref().is_none_or(|tag| carries(note, tag))
                        && !notes.iter().any(|n| n.id == note.id)
                    {
                        notes.push(note.clone());
                    }
                }
            };
            known_notes.saved.with(|saved| newer(saved, &mut notes));
            known_notes.cached.with(|cached| newer(cached, &mut notes));
        }
        notes.retain(|n| {
            n.trashed_at.is_none()
                && !known_notes.is_gone(&n.id)
                && tag.as_deref().is_none_or(|tag| carries(n, tag))
        });
        // As the server lists them: pinned first (as this page shows them, a pin that
        // waits to be sent included), newest first in each part.
        notes.sort_by_cached_key(|n| {
            (
                std::cmp::Reverse(shows_pinned(page, n)),
                std::cmp::Reverse((n.created_at.clone(), n.id.clone())),
            )
        });
        notes
    });
    let older = next.map(|cursor| {
        let href = format!("{pages_at}?before={}", urlencode(&cursor));
        view! { <p class="pager"><a href=href rel="external">"Older notes"</a></p> }
    });
    view! {
        <Show when=move || all.with(|notes| !notes.is_empty()) fallback=|| view! { <p class="muted empty">"No notes yet."</p> }>
            <ul class="notes" data-testid="saved-notes">
                <For each=move || all.get() key=|note| (note.id.clone(), note.version) children=move |note| view! { <NoteCard note /> } />
            </ul>
        </Show>
        {older}
    }
}

/// Whether a note carries `tag` or a tag nested under it.
fn carries(note: &Note, tag: &str) -> bool {
    carries_tag(&note.tags, tag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tags_list_takes_the_notes_of_the_tag_and_of_tags_nested_under_it_only() {
        let note = |tags: &[&str]| Note {
            id: "n".into(),
            title: "t".into(),
            body: "b".into(),
            written_at: "w".into(),
            created_at: "c".into(),
            updated_at: "u".into(),
            version: 1,
            trashed_at: None,
            conflict_of: None,
            tags: tags.iter().map(|t| t.to_string()).collect(),
            pinned: false,
            html: None,
        };
        assert!(carries(&note(&["work"]), "work"));
        assert!(carries(&note(&["home", "work/meetings"]), "work"));
        assert!(!carries(&note(&["workshop"]), "work"));
        assert!(!carries(&note(&["work"]), "work/meetings"));
        assert!(!carries(&note(&[]), "work"));
    }
}
