//! `/tags`: every tag of the notes outside the trash, with how many notes carry it, each a
//! link to its page. A nested tag (`a/b`) is listed under its parent, indented one step
//! per level. The counts are read again when another device changes a note.

use leptos::prelude::*;

use crate::api::TagCount;
use crate::components::notices::Notices;
use crate::components::status_line::StatusLine;
use crate::data;
use crate::links::tag_href;
use crate::state::PageState;

/// Deepest indentation the page shows; deeper levels stay at it.
const MAX_INDENT: usize = 4;

#[component]
pub fn TagsPage() -> impl IntoView {
    let feed = expect_context::<PageState>().feed;
    // The counts are read again after each change from other devices (see `Feed`).
    feed.wants_tag_counts.set_value(true);
    let tags = Resource::new(|| (), |_| data::tags());
    view! {
        <StatusLine />
        <Notices />
        <section class="tags-page" aria-labelledby="tags-heading">
            <h2 id="tags-heading">"Tags"</h2>
            <Transition fallback=|| view! { <p class="muted">"Loading the tags…"</p> }>
                {move || Suspend::new(async move {
                    match tags.await {
                        Ok(loaded) => view! { <TagTree loaded /> }.into_any(),
                        Err(error) => view! { <p class="error">{error}</p> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

/// The tags as the page's data had them, or as read again after a change elsewhere.
#[component]
fn TagTree(loaded: Vec<TagCount>) -> impl IntoView {
    let feed = expect_context::<PageState>().feed;
    let tags = Memo::new(move |_| feed.tag_counts.get().unwrap_or_else(|| loaded.clone()));
    view! {
        <Show
            when=move || tags.with(|t| !t.is_empty())
            fallback=|| view! { <p class="muted empty">"No tags yet. Write #tag in a note to tag it."</p> }
        >
            <ul class="tag-tree" data-testid="tags">
                <For each=move || in_tree_order(tags.get()) key=|(tag, _)| (tag.name.clone(), tag.count) children=|(tag, depth)| view! { <TagItem tag depth /> } />
            </ul>
        </Show>
    }
}

#[component]
fn TagItem(tag: TagCount, depth: usize) -> impl IntoView {
    let class = format!("tag-item depth-{}", depth.min(MAX_INDENT));
    let href = tag_href(&tag.name);
    let count = match tag.count {
        1 => "1 note".to_owned(),
        n => format!("{n} notes"),
    };
    view! {
        <li class=class>
            <a class="tag" href=href rel="external">{format!("#{}", tag.name)}</a>
            " " <span class="muted">{count}</span>
        </li>
    }
}

/// The tags level by level (`a`, `a/b`, `a/b/c`, then `a-z`), each with its depth: how
/// many levels it is nested under.
fn in_tree_order(mut tags: Vec<TagCount>) -> Vec<(TagCount, usize)> {
    tags.sort_by(|a, b| a.name.split('/').cmp(b.name.split('/')));
    tags.into_iter()
        .map(|tag| {
            let depth = tag.name.matches('/').count();
            (tag, depth)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_tags_follow_their_parent_one_level_deeper() {
        let tag = |name: &str| TagCount {
            name: name.into(),
            count: 1,
        };
        // As the server sorts them (by name: `-` comes before `/`).
        let listed = in_tree_order(vec![
            tag("a"),
            tag("a-z"),
            tag("a/b"),
            tag("a/b/c"),
            tag("b"),
        ]);
        let names: Vec<(&str, usize)> = listed.iter().map(|(t, d)| (t.name.as_str(), *d)).collect();
        assert_eq!(
            names,
            [("a", 0), ("a/b", 1), ("a/b/c", 2), ("a-z", 0), ("b", 0)]
        );
    }
}
