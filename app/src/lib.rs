#![recursion_limit = "256"]
//! oncenote's front end: the page (Leptos, rendered on the server and hydrated in the
//! browser) and the client save core that makes every note stored exactly once.

pub mod api;
pub mod save;
pub mod ui;

#[cfg(feature = "hydrate")]
mod browser;
#[cfg(feature = "ssr")]
pub mod ssr_context;

pub use ui::{App, shell};

/// The wasm entry point: attach the page's behaviour to the server-rendered HTML.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(App);
}
