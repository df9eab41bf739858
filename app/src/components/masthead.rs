//! The top of every page: the app's name, the way to the notes and the trash, and the
//! search box (a plain form, so it searches without JavaScript too).

use leptos::prelude::*;

#[component]
pub fn Masthead() -> impl IntoView {
    view! {
        <header class="masthead">
            <div class="brand">
                <h1 class="home-link"><a href="/" rel="external">"oncenote"</a></h1>
                <p class="tagline">"A note you save is stored exactly once."</p>
            </div>
            <nav aria-label="Main">
                <a href="/" rel="external">"Notes"</a>
                <a href="/trash" rel="external">"Trash"</a>
            </nav>
            <form class="search-box" method="get" action="/search" role="search" aria-label="Search from any page">
                <label for="search-q" class="visually-hidden">"Search notes"</label>
                <input id="search-q" name="q" type="search" placeholder="Search notes" autocomplete="off" />
                <button type="submit">"Search"</button>
            </form>
        </header>
    }
}
