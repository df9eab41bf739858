//! A search from the search box of an open page: the router shows the results page here
//! in the browser (no page load), and its reader asks `GET /api/search` — naming the
//! page's person, so the server refuses when someone else has signed in on this browser
//! since. Without a network the offline copy answers instead (`offline_pages::search`).
//! While it waits for its answer, the offline copy's sync in the background waits
//! (`idle::person_waiting`).
//!
//! Every other page's data comes with its HTML (rendered on the server, kept by the
//! service worker for offline reading), so going back or forward to one of them from a
//! results page shown here loads it whole ([`load_other_pages_whole`]).

use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

use super::namespace;
use crate::api::{OWNER_HEADER, Problem, SEARCH_PAGE_RESULTS, SearchPage};
use crate::links::{SEARCH_PAGE, search_href};

/// What the server said to a search.
pub enum Searched {
    Found(SearchPage),
    /// Refused, in words (the server's own detail when it gave one).
    Refused(String),
    /// The server could not be reached.
    Unreachable,
}

/// `GET /api/search` for `q` (from `cursor`), a page of results as the server renders one.
pub async fn search(q: &str, cursor: Option<&str>) -> Searched {
    let mut url = format!("/api{}&limit={SEARCH_PAGE_RESULTS}", search_href(q));
    if let Some(cursor) = cursor {
        url.push_str(&format!("&cursor={}", crate::links::urlencode(cursor)));
    }
    let mut request = gloo_net::http::Request::get(&url);
    if let Some(owner) = namespace::user().or_else(namespace::read_user_from_page) {
        request = request.header(OWNER_HEADER, &owner);
    }
    let what = "The search could not be run";
    // The offline copy's sync waits until the answer is here.
    let _waiting = super::idle::person_waiting();
    match request.send().await {
        Ok(response) if response.ok() => match response.json::<SearchPage>().await {
            Ok(page) => Searched::Found(page),
            Err(_) => Searched::Refused(format!("{what}: its answer could not be read.")),
        },
        Ok(response) => Searched::Refused(match response.json::<Problem>().await {
            Ok(problem) => format!("{what}: {}.", problem.detail),
            Err(_) => format!("{what} (the server answered {}).", response.status()),
        }),
        Err(_) => Searched::Unreachable,
    }
}

/// Going back or forward from a results page shown here to any other page loads that page
/// from the server (its data is not read here): the router is not asked to render it.
pub fn load_other_pages_whole() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let handler = Closure::<dyn Fn(web_sys::Event)>::new(|event: web_sys::Event| {
        let Some(location) = web_sys::window().map(|w| w.location()) else {
            return;
        };
        if location.pathname().ok().as_deref() != Some(SEARCH_PAGE) {
            // Before the router's own listener (this one listens in the capture phase).
            event.stop_immediate_propagation();
            let _ = location.reload();
        }
    });
    let _ = window.add_event_listener_with_callback_and_bool(
        "popstate",
        handler.as_ref().unchecked_ref(),
        true,
    );
    // The listener lives as long as the page.
    handler.forget();
}
