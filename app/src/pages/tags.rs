//! `/tags`: every tag of the notes outside the trash, with how many notes carry it, each a
//! link to its page. A nested tag (`a/b`) is listed under its parent, indented one step
//! per level.

use leptos::prelude::*;

use crate::api::TagCount;
use crate::components::notices::Notices;
use crate::components::status_line::StatusLine;
use crate::data;
use crate::links::tag_href;

/// Deepest indentation the page shows; deeper levels stay at it.
const MAX_INDENT: usize = 4;

#[component]
pub fn TagsPage() -> impl IntoView {
    let tags = Resource::new(|| (), |_| data::tags());
    view! {
        <StatusLine />
        <Notices />
        <section class="tags-page" aria-labelledby="tags-heading">
            <h2 id="tags-heading">"Tags"</h2>
            <Transition fallback=|| view! { <p class="muted">"Loading the tags…"</p> }>
                {move || Suspend::new(async move {
                    match tags.await {
                        Ok(tags) if tags.is_empty() => view! {
                            <p class="muted empty">"No tags yet. Write #tag in a note to tag it."</p>
                        }
                        .into_any(),
                        Ok(tags) => view! { <TagTree tags /> }.into_any(),
                        Err(error) => view! { <p class="error">{error}</p> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn TagTree(tags: Vec<TagCount>) -> impl IntoView {
    let items = in_tree_order(tags)
        .into_iter()
        .map(|(tag, depth)| {
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
        })
        .collect_view();
    view! { <ul class="tag-tree" data-testid="tags">{items}</ul> }
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
