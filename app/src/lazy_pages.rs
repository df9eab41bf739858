//! The pages after the first: each one's code is a chunk of wasm of its own, fetched
//! when the page is opened (Leptos's lazy routes, split by `cargo leptos build --split`).
//!
//! The home page stays in the main wasm: it is the page most visits start on. Every
//! other page is a `LazyRoute` whose view is only reachable from its own lazy function,
//! so wasm-split can move the page's code (and what only it uses) out of the main wasm.
//! On the server the routes render as before; in the browser `hydrate()` (lib.rs) fetches
//! the opened page's chunk before it hydrates. The wasm imports the chunk loader, so
//! every browser build of the site needs `--split` (scripts/build.sh); the native tests
//! and the server never see a chunk.
//!
//! Each route is written out: `#[lazy_route]` names its chunk from the type, and a macro
//! around it would give all of them one call site.

use leptos::prelude::*;
use leptos_router::{LazyRoute, lazy_route};

use crate::pages::account_forms::{
    AccountPage, AdminPage, InvitePage, SetupPage, SignInPage, SignUpPage,
};
use crate::pages::history::HistoryPage;
use crate::pages::note::NotePage;
use crate::pages::search::SearchPage;
use crate::pages::tag::TagPage;
use crate::pages::tags::TagsPage;
use crate::pages::trash::TrashPage;

/// Loads the search page's chunk once the page is live: a search from the masthead's box
/// shows its results without a page load (the one page the router shows in the browser),
/// so its code must be there before the press — also when the network is gone by then.
#[cfg(feature = "hydrate")]
pub fn preload_search_page() {
    leptos::task::spawn_local(<SearchRoute as LazyRoute>::preload());
}

/// `/notes/:id`.
pub struct NoteRoute;
#[lazy_route]
impl LazyRoute for NoteRoute {
    fn data() -> Self {
        Self
    }
    fn view(_this: Self) -> AnyView {
        view! { <NotePage /> }.into_any()
    }
}

/// `/notes/:id/history`.
pub struct HistoryRoute;
#[lazy_route]
impl LazyRoute for HistoryRoute {
    fn data() -> Self {
        Self
    }
    fn view(_this: Self) -> AnyView {
        view! { <HistoryPage /> }.into_any()
    }
}

/// `/trash`.
pub struct TrashRoute;
#[lazy_route]
impl LazyRoute for TrashRoute {
    fn data() -> Self {
        Self
    }
    fn view(_this: Self) -> AnyView {
        view! { <TrashPage /> }.into_any()
    }
}

/// `/search`.
pub struct SearchRoute;
#[lazy_route]
impl LazyRoute for SearchRoute {
    fn data() -> Self {
        Self
    }
    fn view(_this: Self) -> AnyView {
        view! { <SearchPage /> }.into_any()
    }
}

/// `/tags`.
pub struct TagsRoute;
#[lazy_route]
impl LazyRoute for TagsRoute {
    fn data() -> Self {
        Self
    }
    fn view(_this: Self) -> AnyView {
        view! { <TagsPage /> }.into_any()
    }
}

/// `/tags/*name`.
pub struct TagRoute;
#[lazy_route]
impl LazyRoute for TagRoute {
    fn data() -> Self {
        Self
    }
    fn view(_this: Self) -> AnyView {
        view! { <TagPage /> }.into_any()
    }
}

/// `/sign-in`.
pub struct SignInRoute;
#[lazy_route]
impl LazyRoute for SignInRoute {
    fn data() -> Self {
        Self
    }
    fn view(_this: Self) -> AnyView {
        view! { <SignInPage /> }.into_any()
    }
}

/// `/sign-up`.
pub struct SignUpRoute;
#[lazy_route]
impl LazyRoute for SignUpRoute {
    fn data() -> Self {
        Self
    }
    fn view(_this: Self) -> AnyView {
        view! { <SignUpPage /> }.into_any()
    }
}

/// `/setup`.
pub struct SetupRoute;
#[lazy_route]
impl LazyRoute for SetupRoute {
    fn data() -> Self {
        Self
    }
    fn view(_this: Self) -> AnyView {
        view! { <SetupPage /> }.into_any()
    }
}

/// `/invite/:token`.
pub struct InviteRoute;
#[lazy_route]
impl LazyRoute for InviteRoute {
    fn data() -> Self {
        Self
    }
    fn view(_this: Self) -> AnyView {
        view! { <InvitePage /> }.into_any()
    }
}

/// `/account`.
pub struct AccountRoute;
#[lazy_route]
impl LazyRoute for AccountRoute {
    fn data() -> Self {
        Self
    }
    fn view(_this: Self) -> AnyView {
        view! { <AccountPage /> }.into_any()
    }
}

/// `/admin`.
pub struct AdminRoute;
#[lazy_route]
impl LazyRoute for AdminRoute {
    fn data() -> Self {
        Self
    }
    fn view(_this: Self) -> AnyView {
        view! { <AdminPage /> }.into_any()
    }
}
