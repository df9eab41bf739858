//! The home page's list (and a tag's): a page of notes from the server (pinned first,
//! then newest first, notes in the trash left out), with what this visit knows better
//! folded in — newer versions from answers and from other devices (the change feed),
//! notes created or restored since the page was rendered, pins waiting to be sent, notes
//! moved to the trash or deleted meanwhile taken out — and a link to older notes.
//! Rendered on the server, so it reads with JavaScript off.

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
    let span = FirstPageSpan::of(&loaded, next.is_some());
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
            let joins = |note: &Note, notes: &Vec<Note>| {
                tag.as_deref().is_none_or(|tag| carries(note, tag))
                    && !notes.iter().any(|n| n.id == note.id)
            };
            // Whole notes this visit learned (its answers, the change feed) are current:
            // each one that sorts into this page belongs on it — made, restored, pinned or
            // given the tag since the server rendered it, here or on another device.
            known_notes.saved.with(|saved| {
                for note in saved {
                    if span.takes(note, shows_pinned(page, note)) && joins(note, &notes) {
                        notes.push(note.clone());
                    }
                }
            });
            // The cache may be older than the page: only notes created since it was
            // rendered (in another tab) are taken from there.
            let since = newest_loaded.clone().unwrap_or_default();
            known_notes.cached.with(|cached| {
                for note in cached {
                    if note.created_at > since && joins(note, &notes) {
                        notes.push(note.clone());
                    }
                }
            });
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

/// Which notes the first page of a list holds: the server sends the pinned notes, then
/// the newest; with more pages after it, a note older than the oldest one it sent is on a
/// later page.
#[derive(Clone, Debug, PartialEq)]
struct FirstPageSpan {
    /// The oldest unpinned note the page holds (created, id).
    oldest: Option<(String, String)>,
    /// Whether more pages follow.
    more: bool,
}

impl FirstPageSpan {
    fn of(loaded: &[Note], more: bool) -> Self {
        let oldest = loaded
            .iter()
            .filter(|n| !n.pinned)
            .map(|n| (n.created_at.clone(), n.id.clone()))
            .min();
        Self { oldest, more }
    }

    /// Whether `note` (shown pinned or not) sorts into the page.
    fn takes(&self, note: &Note, pinned: bool) -> bool {
        !self.more
            || pinned
            || self.oldest.as_ref().is_some_and(|(created, id)| {
                (note.created_at.as_str(), note.id.as_str()) > (created.as_str(), id.as_str())
            })
    }
}

/// Whether a note carries `tag` or a tag nested under it.
fn carries(note: &Note, tag: &str) -> bool {
    carries_tag(&note.tags, tag)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dated(id: &str, created_at: &str, pinned: bool) -> Note {
        Note {
            id: id.into(),
            title: id.into(),
            body: "b".into(),
            written_at: "w".into(),
            created_at: created_at.into(),
            updated_at: "u".into(),
            version: 1,
            trashed_at: None,
            conflict_of: None,
            tags: Vec::new(),
            pinned,
            html: None,
        }
    }

    #[test]
    fn a_note_restored_or_made_elsewhere_joins_the_first_page_when_it_sorts_into_it() {
        let loaded = [
            dated("p", "2026-01-01", true),
            dated("b", "2026-03-01", false),
            dated("a", "2026-02-01", false),
        ];
        let span = FirstPageSpan::of(&loaded, true);
        assert!(
            span.takes(&dated("new", "2026-04-01", false), false),
            "made since"
        );
        assert!(
            span.takes(&dated("mid", "2026-02-15", false), false),
            "restored, between two listed"
        );
        assert!(
            !span.takes(&dated("old", "2026-01-15", false), false),
            "older: on a later page"
        );
        assert!(
            span.takes(&dated("old", "2026-01-15", true), true),
            "pinned: listed first"
        );
    }

    #[test]
    fn the_only_page_of_a_list_takes_every_note() {
        let span = FirstPageSpan::of(&[dated("a", "2026-02-01", false)], false);
        assert!(span.takes(&dated("old", "2020-01-01", false), false));
        assert!(FirstPageSpan::of(&[], false).takes(&dated("x", "2020-01-01", false), false));
    }

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
