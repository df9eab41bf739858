//! `/search?q=`: results best first, the matching words marked in a snippet; phrases in
//! quotes, `-word` to leave out, `or` between alternatives. Works without JavaScript.

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use crate::api::SearchHit;
use crate::components::local_time::LocalTime;
use crate::components::search_form::searches_here;
use crate::components::status_line::StatusLine;
use crate::data;
use crate::links::{SEARCH_PAGE, urlencode};

#[component]
pub fn SearchPage() -> impl IntoView {
    let query = use_query_map();
    let q = move || query.with(|p| p.get("q").unwrap_or_default());
    let cursor = move || query.with(|p| p.get("cursor"));
    let results = Resource::new(
        move || (q(), cursor()),
        |(q, cursor)| async move {
            if q.trim().is_empty() {
                return Ok(None);
            }
            data::search(q, cursor).await.map(Some)
        },
    );
    let search_box = NodeRef::new();
    view! {
        <StatusLine />
        <section class="search" aria-labelledby="search-heading">
            <h2 id="search-heading">"Search"</h2>
            <form method="get" action=SEARCH_PAGE class="search-form" role="search" aria-label="Search again" on:submit=searches_here(search_box)>
                <label for="search-page-q">"Search for"</label>
                <input id="search-page-q" name="q" type="search" value=q autocomplete="off" node_ref=search_box />
                <button type="submit">"Search"</button>
            </form>
            <p class="hint muted">"Words must all match; use \"quotes\" for a phrase, -word to leave a word out, or between alternatives."</p>
            <Transition fallback=|| view! { <p class="muted">"Searching…"</p> }>
                {move || Suspend::new(async move {
                    match results.await {
                        Ok(Some(page)) => view! { <Results q=q() hits=page.results next=page.next /> }.into_any(),
                        Ok(None) => ().into_any(),
                        Err(error) => view! { <p class="error" role="alert">{error}</p> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn Results(q: String, hits: Vec<SearchHit>, next: Option<String>) -> impl IntoView {
    if hits.is_empty() {
        return view! { <p class="muted empty">"No notes match “" {q} "”."</p> }.into_any();
    }
    let more = next.map(|cursor| {
        let href = format!("/search?q={}&cursor={}", urlencode(&q), urlencode(&cursor));
        view! { <p class="pager"><a href=href rel="external">"More results"</a></p> }
    });
    let items = hits
        .into_iter()
        .map(|hit| {
            view! {
                <li class="note result">
                    <h3 class="note-title"><a href=format!("/notes/{}", hit.note.id) rel="external">{hit.note.title.clone()}</a></h3>
                    // The server escaped the snippet's text; its only markup is <mark>.
                    <p class="note-excerpt snippet" inner_html=hit.snippet></p>
                    <LocalTime at=hit.note.written_at.clone() />
                </li>
            }
        })
        .collect_view();
    view! {
        <ul class="notes" data-testid="search-results">{items}</ul>
        {more}
    }
    .into_any()
}
