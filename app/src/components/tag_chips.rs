//! Tags as links: a note's tags as small chips, each leading to the tag's page, and the
//! address of that page.

use leptos::prelude::*;

use crate::links::tag_href;

/// A note's tags, each a link to its page; nothing when it has none.
#[component]
pub fn TagChips(tags: Vec<String>) -> impl IntoView {
    (!tags.is_empty()).then(|| {
        let chips = tags
            .into_iter()
            .map(|name| {
                let href = tag_href(&name);
                view! { <li><a class="tag" href=href rel="external">{format!("#{name}")}</a></li> }
            })
            .collect_view();
        view! { <ul class="tags" aria-label="Tags">{chips}</ul> }
    })
}
