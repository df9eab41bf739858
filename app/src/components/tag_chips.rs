//! A note's tags as small chips, each a link to the tag's page. Not a list of its own: a
//! card is an item of the notes list, and its tags are a line of it.

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
                view! { " " <a class="tag" href=href rel="external">{format!("#{name}")}</a> }
            })
            .collect_view();
        view! { <p class="tags"><span class="visually-hidden">"Tags:"</span>{chips}</p> }
    })
}
