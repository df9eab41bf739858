//! The saved notes, newest first (by when the server stored them). Rendered on the server, so they read with JavaScript off.

use leptos::prelude::*;

use crate::api::Note;
use crate::state::PageState;

/// How much of a body the list shows.
const EXCERPT_CHARS: usize = 160;

#[component]
pub fn SavedNotes() -> impl IntoView {
    let recent = Resource::new(|| (), |_| load_recent_notes());
    view! {
        <section class="saved" aria-labelledby="saved-heading">
            <h2 id="saved-heading">"Notes"</h2>
            <Transition fallback=|| view! { <p class="muted">"Loading notes…"</p> }>
                {move || Suspend::new(async move {
                    match recent.await {
                        Ok(loaded) => view! { <NotesList loaded /> }.into_any(),
                        Err(error) => view! { <p class="error">{error}</p> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

/// The notes the server rendered, those saved during this visit and those the browser
/// kept from before, each once, newest first.
#[component]
fn NotesList(loaded: Vec<Note>) -> impl IntoView {
    let queue = expect_context::<PageState>().queue;
    // The browser keeps what the server sent, so the list (and the notes cache made from
    // it) still has these notes when the page is opened offline.
    let rendered = loaded.clone();
    Effect::new(move |_| queue.learn_notes(rendered.clone()));
    let all = Memo::new(move |_| {
        let mut notes = queue.saved.get();
        for note in &loaded {
            if !notes.iter().any(|n| n.id == note.id) {
                notes.push(note.clone());
            }
        }
        notes.sort_by(|a, b| {
            b.created_at
                .cmp(&a.created_at)
                .then_with(|| b.id.cmp(&a.id))
        });
        notes
    });
    view! {
        <Show when=move || all.with(|notes| !notes.is_empty()) fallback=|| view! { <p class="muted empty">"No notes yet."</p> }>
            <ul class="notes" data-testid="saved-notes">
                <For each=move || all.get() key=|note| note.id.clone() children=move |note| view! { <NoteItem note /> } />
            </ul>
        </Show>
    }
}

#[component]
fn NoteItem(note: Note) -> impl IntoView {
    view! {
        <li class="note" data-note-id=note.id.clone()>
            <h3 class="note-title">{note.title.clone()}</h3>
            <p class="note-excerpt">{excerpt(&note.body)}</p>
            <time datetime=note.written_at.clone()>{readable_time(&note.written_at)}</time>
        </li>
    }
}

/// The start of a body, cut at a character boundary.
pub fn excerpt(body: &str) -> String {
    let mut chars = body.chars();
    let start: String = chars.by_ref().take(EXCERPT_CHARS).collect();
    if chars.next().is_some() {
        format!("{start}…")
    } else {
        start
    }
}

/// `2026-11-30T05:00:00.000Z` → `2026-11-30 05:00 UTC` (the same on server and browser,
/// so hydration matches).
pub fn readable_time(rfc3339: &str) -> String {
    match rfc3339.get(..16) {
        Some(minutes) => format!("{} UTC", minutes.replacen('T', " ", 1)),
        None => rfc3339.to_owned(),
    }
}

fn load_recent_notes()
-> impl std::future::Future<Output = Result<Vec<Note>, String>> + Send + 'static {
    #[cfg(feature = "ssr")]
    {
        let source = use_context::<crate::ssr_context::RecentNotes>();
        async move {
            match source {
                Some(source) => source.load().await,
                None => Err("the notes could not be read".to_owned()),
            }
        }
    }
    // In the browser the list arrives with the page (serialized by the server), so the
    // resource never has to fetch on its own.
    #[cfg(not(feature = "ssr"))]
    {
        std::future::ready(Ok(Vec::new()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_excerpt_cuts_long_bodies_at_a_character_boundary() {
        let body = "é".repeat(200);
        let cut = excerpt(&body);
        assert_eq!(cut.chars().count(), EXCERPT_CHARS + 1);
        assert!(cut.ends_with('…'));
        assert_eq!(excerpt("short"), "short");
    }

    #[test]
    fn times_read_to_the_minute_in_utc() {
        assert_eq!(
            readable_time("2026-11-30T05:07:09.123Z"),
            "2026-11-30 05:07 UTC"
        );
        assert_eq!(readable_time("odd"), "odd");
    }
}
