//! The HTML document and the app's routes.

use leptos::prelude::*;
use leptos_meta::{HashedStylesheet, MetaTags, Title, provide_meta_context};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::{SsrMode, StaticSegment};

use crate::door;
use crate::pages::home::HomePage;
use crate::state::PageState;

/// The HTML document around the app.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <meta name="description" content="oncenote: a note you save is stored exactly once." />
                <meta name="theme-color" content="#1f4d3a" />
                <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
                <link rel="manifest" href="/manifest.webmanifest" />
                <HashedStylesheet options=options.clone() id="leptos" />
                <HydrationScripts options />
                <MetaTags />
            </head>
            <body>
                <App />
            </body>
        </html>
    }
}

/// The app: one shared page state, the routes.
#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    let page = PageState::default();
    provide_context(page);

    // Effects run only in the browser, after hydration: load the unsaved intents from
    // localStorage, start sending them, and tell tests the page is live.
    Effect::new(move |_| {
        untrack(|| door::start(page));
        mark_hydrated();
    });

    view! {
        <Title text="oncenote" />
        <header class="masthead">
            <h1>"oncenote"</h1>
            <p class="tagline">"A note you save is stored exactly once."</p>
        </header>
        <Router>
            <main>
                <Routes fallback=|| view! { <p>"There is no such page."</p> }>
                    // Async: the server waits for the notes and sends them in the HTML
                    // itself, so the list reads with JavaScript off.
                    <Route path=StaticSegment("") view=HomePage ssr=SsrMode::Async />
                </Routes>
            </main>
        </Router>
    }
}

/// Sets `data-hydrated="true"` on `<body>`: a click before hydration would go the
/// form's way (a full page post), so the end-to-end tests wait for this mark.
fn mark_hydrated() {
    #[cfg(feature = "hydrate")]
    if let Some(body) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.body())
    {
        let _ = body.set_attribute("data-hydrated", "true");
    }
}
