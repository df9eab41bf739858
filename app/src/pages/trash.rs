//! `/trash`: notes moved to the trash, latest first, each with Restore and Delete for good;
//! it follows what this visit learns (here or from other devices): notes moved there
//! appear, notes restored or deleted for good leave. The trash empties itself of notes
//! kept there longer than the server's retention.

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
                        Ok(page) => view! { <TrashList loaded=page.notes first_page=cursor().is_none() next=page.next /> }.into_any(),
                        Err(error) => view! { <p class="error">{error}</p> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn TrashList(loaded: Vec<Note>, first_page: bool, next: Option<String>) -> impl IntoView {
    let known_notes = expect_context::<PageState>().notes;
    let span = TrashSpan::of(&loaded, next.is_some());
    // What this visit knows better: notes restored or deleted for good meanwhile, and (on
    // the first page) notes moved to the trash since, here or on another device.
    let all = Memo::new(move |_| {
        let mut notes: Vec<Note> = loaded
            .iter()
            .map(|note| match known_notes.latest(&note.id) {
                Some(newer) if newer.version > note.version => newer,
                _ => note.clone(),
            })
            .collect();
        if first_page {
            known_notes.saved.with(|saved| {
                for note in saved {
                    if span.takes(note) && !notes.iter().any(|n| n.id == note.id) {
                        notes.push(note.clone());
                    }
                }
            });
        }
        notes.retain(|n| n.trashed_at.is_some() && !known_notes.is_gone(&n.id));
        // As the server lists them: latest moved first.
        notes.sort_by(|a, b| {
            b.trashed_at
                .cmp(&a.trashed_at)
                .then_with(|| b.id.cmp(&a.id))
        });
        notes
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

/// Which notes the first page of the trash holds: the latest moved there; with more pages
/// after it, a note moved there before the earliest one it sent is on a later page.
struct TrashSpan {
    /// When the earliest note the page holds went to the trash, when more pages follow.
    earliest: Option<String>,
    more: bool,
}

impl TrashSpan {
    fn of(loaded: &[Note], more: bool) -> Self {
        let earliest = loaded.iter().filter_map(|n| n.trashed_at.clone()).min();
        Self { earliest, more }
    }

    /// Whether `note` is in the trash and sorts into the page.
    fn takes(&self, note: &Note) -> bool {
        let Some(at) = &note.trashed_at else {
            return false;
        };
        !self.more
            || self
                .earliest
                .as_ref()
                .is_some_and(|earliest| at >= earliest)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn trashed(id: &str, at: Option<&str>) -> Note {
        Note {
            id: id.into(),
            title: id.into(),
            body: "b".into(),
            written_at: "w".into(),
            created_at: "c".into(),
            updated_at: "u".into(),
            version: 2,
            trashed_at: at.map(str::to_owned),
            conflict_of: None,
            tags: Vec::new(),
            pinned: false,
            html: None,
        }
    }

    #[test]
    fn a_note_moved_to_the_trash_elsewhere_joins_its_first_page() {
        let loaded = [
            trashed("b", Some("2026-03-01")),
            trashed("a", Some("2026-02-01")),
        ];
        let span = TrashSpan::of(&loaded, true);
        assert!(span.takes(&trashed("new", Some("2026-04-01"))));
        assert!(
            !span.takes(&trashed("old", Some("2026-01-01"))),
            "on a later page"
        );
        assert!(!span.takes(&trashed("restored", None)), "not in the trash");
        assert!(TrashSpan::of(&[], false).takes(&trashed("new", Some("2026-04-01"))));
    }
}
