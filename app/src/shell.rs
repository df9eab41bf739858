//! The HTML document and the app's routes.

use leptos::prelude::*;
use leptos_meta::{HashedStylesheet, MetaTags, Title, provide_meta_context};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::{ParamSegment, SsrMode, StaticSegment, WildcardSegment};

use crate::components::masthead::Masthead;
use crate::door;
use crate::hydration::HydrateAfterPaint;
use crate::pages::account_forms::{
    AccountPage, AdminPage, InvitePage, SetupPage, SignInPage, SignUpPage,
};
use crate::pages::history::HistoryPage;
use crate::pages::home::HomePage;
use crate::pages::note::NotePage;
use crate::pages::search::SearchPage;
use crate::pages::tag::TagPage;
use crate::pages::tags::TagsPage;
use crate::pages::trash::TrashPage;
use crate::pages::version::VersionPage;
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
                <HydrateAfterPaint options />
                <MetaTags />
            </head>
            // Whose page this is: the browser keeps each person's data apart by it (and
            // keeps the name for the masthead of pages opened offline); where their change
            // feed stood when the page's data was read.
            <body data-user=signed_in_user() data-username=signed_in_username() data-seq=feed_seq()>
                <App />
            </body>
        </html>
    }
}

/// The id of the person the page is rendered for (empty for nobody).
fn signed_in_user() -> String {
    #[cfg(feature = "ssr")]
    {
        use_context::<crate::ssr_context::SignedInAs>()
            .map(|s| s.0.user_id)
            .unwrap_or_default()
    }
    #[cfg(not(feature = "ssr"))]
    {
        String::new()
    }
}

/// The name of the person the page is rendered for (empty for nobody).
fn signed_in_username() -> String {
    #[cfg(feature = "ssr")]
    {
        use_context::<crate::ssr_context::SignedInAs>()
            .map(|s| s.0.username)
            .unwrap_or_default()
    }
    #[cfg(not(feature = "ssr"))]
    {
        String::new()
    }
}

/// Where the person's change feed stood when the page's data was read (absent for
/// nobody, and on pages rendered without it).
fn feed_seq() -> Option<String> {
    #[cfg(feature = "ssr")]
    {
        use_context::<crate::ssr_context::FeedSeq>().map(|s| s.0.to_string())
    }
    #[cfg(not(feature = "ssr"))]
    {
        None
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

    // Every page is Async: the server waits for its data and sends it in the HTML itself,
    // so pages read with JavaScript off, and the service worker can keep them whole for
    // offline reading. Links are full page loads (rel="external"); a search sent from a
    // live page is the one way the router shows a page in the browser.
    view! {
        <Title text="oncenote" />
        <Router>
            // Inside the router: its search box shows the results without a page load.
            <Masthead />
            <main>
                <Routes fallback=|| view! { <p>"There is no such page."</p> }>
                    <Route path=StaticSegment("") view=HomePage ssr=SsrMode::Async />
                    <Route path=(StaticSegment("notes"), ParamSegment("id")) view=NotePage ssr=SsrMode::Async />
                    <Route
                        path=(StaticSegment("notes"), ParamSegment("id"), StaticSegment("history"))
                        view=HistoryPage
                        ssr=SsrMode::Async
                    />
                    <Route
                        path=(StaticSegment("notes"), ParamSegment("id"), StaticSegment("history"), ParamSegment("version"))
                        view=VersionPage
                        ssr=SsrMode::Async
                    />
                    <Route path=StaticSegment("trash") view=TrashPage ssr=SsrMode::Async />
                    <Route path=StaticSegment("search") view=SearchPage ssr=SsrMode::Async />
                    <Route path=StaticSegment("tags") view=TagsPage ssr=SsrMode::Async />
                    // A nested tag's levels are path segments: `/tags/a/b` is the tag `a/b`.
                    <Route path=(StaticSegment("tags"), WildcardSegment("name")) view=TagPage ssr=SsrMode::Async />
                    <Route path=StaticSegment("sign-in") view=SignInPage ssr=SsrMode::Async />
                    <Route path=StaticSegment("sign-up") view=SignUpPage ssr=SsrMode::Async />
                    <Route path=StaticSegment("setup") view=SetupPage ssr=SsrMode::Async />
                    <Route path=(StaticSegment("invite"), ParamSegment("token")) view=InvitePage ssr=SsrMode::Async />
                    <Route path=StaticSegment("account") view=AccountPage ssr=SsrMode::Async />
                    <Route path=StaticSegment("admin") view=AdminPage ssr=SsrMode::Async />
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
