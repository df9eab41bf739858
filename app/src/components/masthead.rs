//! The top of every page: the app's name and, for the signed-in person, the way to the
//! notes, the tags, the trash and their account, the search box (a plain form, so it searches
//! without JavaScript too; once the page is live, its results show without a page load),
//! and Sign out (which asks first when writes are unsaved) — and,
//! when someone else has signed in on this browser since the page was opened, or the
//! page's session ended, a warning that this page's writes wait for its person; and when
//! the browser will not keep the offline copy, a note saying so.

use leptos::prelude::*;

use crate::api::Me;
use crate::components::search_form::searches_here;
use crate::components::unsaved_list::sign_in_here;
use crate::data;
use crate::door;
use crate::links::SEARCH_PAGE;
use crate::state::PageState;

#[component]
pub fn Masthead() -> impl IntoView {
    let me = Resource::new(|| (), |_| data::me());
    view! {
        <header class="masthead">
            <div class="brand">
                <h1 class="home-link"><a href="/" rel="external">"oncenote"</a></h1>
                <p class="tagline">"A note you save is stored exactly once."</p>
            </div>
            <Suspense fallback=|| ()>
                {move || Suspend::new(async move {
                    match me.await {
                        Ok(Some(me)) => view! { <SignedInMenu me /> }.into_any(),
                        _ => ().into_any(),
                    }
                })}
            </Suspense>
        </header>
    }
}

#[component]
fn SignedInMenu(me: Me) -> impl IntoView {
    let page = expect_context::<PageState>();
    let admin = me
        .admin
        .then(|| view! { <a href="/admin" rel="external">"People"</a> });
    let name = me.username.clone();
    let search_box = NodeRef::new();
    view! {
        // The cookie changed under this page (its person signed out in another tab, someone
        // else signed in): the server refused this page's writes, which wait for its person.
        <Show when=move || page.connection.someone_else_signed_in.get()>
            <p class="someone-else" role="alert" data-testid="someone-else">
                "Someone else has signed in on this browser since this page was opened. What you save here is "
                {name.clone()}
                "’s: it stays in this browser and is sent once "
                {name.clone()}
                " signs in again. "
                <a href=sign_in_here() rel="external">"Sign in as " {name.clone()}</a>
            </p>
        </Show>
        // The session ended under this page (signed out here or on another device): what
        // is saved here waits in this browser for its person to sign in again.
        <Show when=move || {
            page.connection.session_ended.get() && !page.connection.someone_else_signed_in.get()
        }>
            <p class="someone-else" role="alert" data-testid="session-ended">
                "You were signed out (on this device or another). What you save here stays in this browser and is sent once you sign in again. "
                <a href=sign_in_here() rel="external">"Sign in again"</a>
            </p>
        </Show>
        <Show when=move || page.connection.no_offline_copy.get()>
            <p class="no-offline-copy" role="status" data-testid="no-offline-copy">
                "This browser cannot keep your notes offline (its storage is full, or a private window keeps none): offline, only the pages you opened are there. Nothing you write is lost: unsaved notes wait in this browser and are sent when the network is back."
            </p>
        </Show>
        <nav aria-label="Main">
            <a href="/" rel="external">"Notes"</a>
            <a href="/tags" rel="external">"Tags"</a>
            <a href="/trash" rel="external">"Trash"</a>
            <a href="/account" rel="external">{me.username.clone()}</a>
            {admin}
            <form class="sign-out" method="post" action="/sign-out" on:submit=move |ev| door::confirm_sign_out(ev, page)>
                <button type="submit" class="link">"Sign out"</button>
            </form>
        </nav>
        <form class="search-box" method="get" action=SEARCH_PAGE role="search" aria-label="Search from any page" on:submit=searches_here(search_box)>
            <label for="search-q" class="visually-hidden">"Search notes"</label>
            <input id="search-q" name="q" type="search" placeholder="Search notes" autocomplete="off" node_ref=search_box />
            <button type="submit">"Search"</button>
        </form>
    }
}
