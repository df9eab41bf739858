//! The home page's list: a page of notes from the server (newest first, notes in the
//! trash left out), with what this visit knows better folded in — newer versions from
//! answers, notes created since the page was rendered, notes moved to the trash or
//! deleted meanwhile taken out — and a link to older notes. Rendered on the server, so it
//! reads with JavaScript off.

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use super::note_card::NoteCard;
use crate::api::Note;
use crate::data;
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
                        Ok(page) => view! { <NotesList loaded=page.notes first_page next=page.next /> }.into_any(),
                        Err(error) => view! { <p class="error">{error}</p> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn NotesList(loaded: Vec<Note>, first_page: bool, next: Option<String>) -> impl IntoView {
    let known_notes = expect_context::<PageState>().notes;
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
                    if note.created_at > since && !notes.iter().any(|n| n.id == note.id) {
                        notes.push(note.clone());
                    }
                }
            };
            known_notes.saved.with(|saved| newer(saved, &mut notes));
            known_notes.cached.with(|cached| newer(cached, &mut notes));
        }
        notes.retain(|n| n.trashed_at.is_none() && !known_notes.is_gone(&n.id));
        notes.sort_by(|a, b| {
            b.created_at
                .cmp(&a.created_at)
                .then_with(|| b.id.cmp(&a.id))
        });
        notes
    });
    let older = next.map(|cursor| {
        let href = format!("/?before={}", urlencode(&cursor));
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

/// Percent-encodes a cursor or a query for a link.
pub fn urlencode(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_carry_cursors_and_queries_percent_encoded() {
        assert_eq!(
            urlencode("2026-11-30T05:00:00.123456Z_abc"),
            "2026-11-30T05%3A00%3A00.123456Z_abc"
        );
        assert_eq!(urlencode("café \"x\""), "caf%C3%A9%20%22x%22");
    }
}
