#![recursion_limit = "512"]
//! oncenote's front end: the pages (Leptos, rendered on the server and hydrated in the
//! browser) and the client save core that makes every note stored exactly once.
//!
//! - `api`: wire types and checks shared with the server.
//! - `save`: the pure save core (intent, response reading, retry policy, sender, press).
//! - `offline`: the offline copy's pure core (the feed applied, pages and search over it).
//! - `text`: folding, tokens, CJK bigrams and the search grammar, shared with the server.
//! - `state`: the page's signals; `door`: the one way events reach the queue.
//! - `components`, `pages`: the view; `links`: addresses of pages. `browser`: storage,
//!   fetch, tabs (a stub without the hydrate feature).
//! - `worker_caches`: the names of what the service worker keeps of a person, shared by
//!   the worker (filled in by the server) and the page.

pub mod api;
pub mod components;
pub mod data;
pub mod door;
mod hydration;
pub mod links;
pub mod offline;
pub mod pages;
pub mod save;
pub mod shell;
pub mod state;
pub mod text;
pub mod worker_caches;

/// The browser glue, in the hydrate build.
#[cfg(feature = "hydrate")]
mod browser;
/// Without a browser (server rendering, native tests) the same entry points, doing nothing.
#[cfg(not(feature = "hydrate"))]
#[path = "browser/stub.rs"]
mod browser;
#[cfg(feature = "ssr")]
pub mod ssr_context;

pub use shell::{App, shell};

/// The wasm entry point: attach the page's behaviour to the server-rendered HTML — or, in
/// the offline shell the service worker sends for a page never kept, render the app here
/// from the offline copy.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    if browser::offline_pages::shell_requested() {
        browser::offline_pages::open_shell();
        leptos::mount::mount_to_body(App);
    } else {
        leptos::mount::hydrate_body(App);
    }
}
