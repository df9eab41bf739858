//! `/tags/{name}` (a nested tag at `/tags/a/b`): the notes carrying the tag or one nested
//! under it, pinned first, then newest first (`?before=` pages back), and a form that
//! renames the tag in every note that has it — one save intent, sent exactly once; the
//! page says how many notes it changed when the answer comes.

use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

use crate::api::tag_name;
use crate::components::notes_list::NotesList;
use crate::components::notices::Notices;
use crate::components::status_line::StatusLine;
use crate::components::unsaved_list::PendingItem;
use crate::data;
use crate::door;
use crate::links::tag_href;
use crate::save::intent::IntentKind;
use crate::state::PageState;

#[component]
pub fn TagPage() -> impl IntoView {
    let params = use_params_map();
    // Every link is a full page load: the name does not change while the page is open.
    let raw = params.with_untracked(|p| p.get("name").unwrap_or_default());
    let view = match tag_name(&raw) {
        Ok(name) => view! { <TagNotes name /> }.into_any(),
        Err(error) => view! {
            <section class="missing">
                <h2>"There is no such tag"</h2>
                <p>{format!("“{raw}” is not a tag: {error}. ")} <a href="/tags" rel="external">"All tags"</a></p>
            </section>
        }
        .into_any(),
    };
    view! {
        <StatusLine />
        <Notices />
        {view}
    }
}

#[component]
fn TagNotes(name: String) -> impl IntoView {
    let query = use_query_map();
    let cursor = move || query.with(|q| q.get("before"));
    let notes = {
        let name = name.clone();
        Resource::new(cursor, move |cursor| data::tagged(name.clone(), cursor))
    };
    let list_name = name.clone();
    view! {
        <section class="tag-page" aria-labelledby="tag-heading">
            <h2 id="tag-heading">{format!("#{name}")}</h2>
            <p><a href="/tags" rel="external">"All tags"</a></p>
            <RenameTagForm from=name />
            <Transition fallback=|| view! { <p class="muted">"Loading notes…"</p> }>
                {move || {
                    let name = list_name.clone();
                    Suspend::new(async move {
                        let first_page = cursor().is_none();
                        match notes.await {
                            Ok(page) => view! {
                                <NotesList loaded=page.notes first_page next=page.next pages_at=tag_href(&name) tag=name />
                            }
                            .into_any(),
                            Err(error) => view! { <p class="error">{error}</p> }.into_any(),
                        }
                    })
                }}
            </Transition>
        </section>
    }
}

/// The new name as it is sent (trimmed, without a leading `#`: the server keeps how it is
/// written), or why it cannot be: checked with the rules the server applies, before a
/// key is made.
fn rename_to(from: &str, wanted: &str) -> Result<String, String> {
    tag_name(wanted).map_err(|e| e.to_string())?;
    let wanted = wanted.trim();
    let written = wanted.strip_prefix('#').unwrap_or(wanted);
    if written == from {
        return Err(format!("#{from} already has that name"));
    }
    Ok(written.to_owned())
}

/// New name, Rename; the renames of this tag not yet saved, with their state. Disabled
/// until the page is live (without JavaScript nothing would send it).
#[component]
fn RenameTagForm(from: String) -> impl IntoView {
    let page = expect_context::<PageState>();
    let to = RwSignal::new(String::new());
    let refused = RwSignal::new(None::<String>);
    let live = RwSignal::new(false);
    Effect::new(move |_| live.set(true));
    let pending = {
        let from = from.clone();
        Memo::new(move |_| {
            page.queue.entries.with(|all| {
                all.iter()
                    .filter_map(|entry| entry.intent())
                    .filter(
                        |i| matches!(&i.kind, IntentKind::RenameTag { from: f, .. } if *f == from),
                    )
                    .map(|i| i.key.clone())
                    .collect::<Vec<_>>()
            })
        })
    };
    let submit = move |event: leptos::ev::SubmitEvent| {
        event.prevent_default();
        match rename_to(&from, &to.get_untracked()) {
            Err(why) => refused.set(Some(format!("Not renamed: {why}."))),
            Ok(written) => {
                refused.set(None);
                door::change_note(
                    page,
                    IntentKind::RenameTag {
                        from: from.clone(),
                        to: written,
                    },
                );
                to.set(String::new());
            }
        }
    };
    view! {
        <form class="rename-tag" on:submit=submit aria-label="Rename this tag">
            <label for="rename-to">"New name"</label>
            <div class="rename-row">
                <input id="rename-to" type="text" autocomplete="off" bind:value=to />
                <button type="submit" disabled=move || !live.get()>"Rename"</button>
            </div>
            <p class="notice" role="alert" data-testid="rename-notice">{move || refused.get()}</p>
        </form>
        <Show when=move || pending.with(|p| !p.is_empty())>
            <h3 class="pending-heading">"Not yet saved"</h3>
            <ul class="notes" data-testid="pending-renames">
                <For each=move || pending.get() key=|key| key.clone() children=|id| view! { <PendingItem id /> } />
            </ul>
        </Show>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rename_is_checked_before_a_key_is_made_and_keeps_how_the_name_is_written() {
        assert_eq!(rename_to("work", "#Job").unwrap(), "Job");
        assert_eq!(
            rename_to("work", "  job/meetings ").unwrap(),
            "job/meetings"
        );
        assert_eq!(rename_to("work", "Work").unwrap(), "Work", "a new spelling");
        assert!(rename_to("work", "work").is_err());
        assert!(rename_to("work", "").unwrap_err().contains("empty"));
        assert!(rename_to("work", "a b").is_err());
        assert!(rename_to("work", "2026").is_err());
    }
}
