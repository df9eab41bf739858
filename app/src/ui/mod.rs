//! The page: a compose form, the notes not yet saved, and the saved notes.

mod compose;
mod notes_list;
pub mod save_queue;
mod status_line;
mod unsaved_list;

use leptos::prelude::*;
use leptos_meta::{HashedStylesheet, MetaTags, Title, provide_meta_context};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::{SsrMode, StaticSegment};

use compose::Compose;
use notes_list::SavedNotes;
use save_queue::SaveQueue;
use status_line::StatusLine;
use unsaved_list::UnsavedNotes;

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

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    let queue = SaveQueue::new();
    provide_context(queue);

    // Effects run only in the browser, after hydration: load the unsaved intents from
    // localStorage, start sending them, and tell tests the page is live.
    Effect::new(move |_| {
        untrack(|| queue.start());
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

/// The one page: compose, what is not yet saved, what is saved.
#[component]
fn HomePage() -> impl IntoView {
    view! {
        <StatusLine />
        <Compose />
        <UnsavedNotes />
        <SavedNotes />
    }
}

/// Sets `data-hydrated="true"` on `<body>`: a click before hydration would be lost, so
/// the end-to-end tests wait for this mark.
fn mark_hydrated() {
    #[cfg(feature = "hydrate")]
    if let Some(body) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.body())
    {
        let _ = body.set_attribute("data-hydrated", "true");
    }
}
