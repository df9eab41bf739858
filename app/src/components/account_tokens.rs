//! The account page's "Tokens for scripts": make a personal access token with a name
//! (shown once, with a note to copy it now), the list of the person's tokens (name, when
//! made, when last used or "never") and a Revoke button for each. Read and written with
//! JavaScript once the page has hydrated (`/api/tokens`); the page is rendered without
//! them. Without JavaScript the form posts to [`TOKENS_FORM_PATH`], which makes nothing
//! and comes back here with [`NEEDS_SCRIPT`]: a token is shown once, in this page, which
//! a redirect cannot carry (and the name never lands in a URL, as a GET form's would).

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use crate::api::{TOKEN_NAME_MAX_CHARS, TokenInfo, TokenList, TokenMade};
use crate::components::local_time::LocalTime;
use crate::door;

/// Where the form posts without JavaScript.
pub const TOKENS_FORM_PATH: &str = "/account/tokens";
/// The query (`?tokens=needs-script`) the form without JavaScript comes back with.
pub const NEEDS_SCRIPT: &str = "needs-script";

/// The list as read: not yet, read, or why not.
type Listed = RwSignal<Option<Result<TokenList, String>>>;

/// The tokens section of `/account`.
#[component]
pub fn AccountTokens() -> impl IntoView {
    let list: Listed = RwSignal::new(None);
    let made = RwSignal::new(None::<TokenMade>);
    let message = RwSignal::new(None::<String>);
    let name = RwSignal::new(String::new());
    let query = use_query_map();
    if query.with_untracked(|q| q.get("tokens").as_deref() == Some(NEEDS_SCRIPT)) {
        message.set(Some(
            "Making a token needs JavaScript: the token is shown once, in this page.".into(),
        ));
    }
    Effect::new(move |_| door::load_tokens(list));
    // The typed name stays until a token is made with it: a refused create (a name too
    // long, the session ended) keeps it to be corrected or sent again.
    Effect::new(move |_| {
        if made.with(Option::is_some) {
            name.set(String::new());
        }
    });
    let on_submit = move |event: leptos::ev::SubmitEvent| {
        event.prevent_default();
        let typed = name.get_untracked();
        if typed.trim().is_empty() {
            message.set(Some("Give the token a name first.".into()));
            return;
        }
        made.set(None);
        door::make_token(typed, list, made, message);
    };
    view! {
        <h3 id="tokens-heading">"Tokens for scripts"</h3>
        <p class="muted">
            "A script sends a token as " <code>"Authorization: Bearer …"</code>
            " to read and write your notes, tags and files. A token cannot change your password or make other tokens."
            " Changing your password ends the tokens made from your other browsers and devices; the ones made here stay, as long as you change it here."
        </p>
        <form
            class="compose tokens-form"
            method="post"
            action=TOKENS_FORM_PATH
            aria-labelledby="tokens-heading"
            on:submit=on_submit
        >
            <label for="token-name">"Name of the new token"</label>
            <input
                id="token-name"
                name="name"
                type="text"
                autocomplete="off"
                required
                maxlength=TOKEN_NAME_MAX_CHARS.to_string()
                placeholder="backup script"
                prop:value=move || name.get()
                on:input=move |ev| name.set(event_target_value(&ev))
            />
            <div class="actions"><button type="submit">"Create a token"</button></div>
        </form>
        <p class="notice" role="alert">{move || message.get()}</p>
        // Always there, empty until a token is made: a screen reader announces what
        // fills a live region it knows, not always one inserted with its words.
        <div role="status" data-testid="made-token">
            {move || made.get().map(|token| view! { <MadeToken token /> })}
        </div>
        <div data-testid="account-tokens">
            {move || match list.get() {
                None => view! { <p class="muted">"Reading your tokens…"</p> }.into_any(),
                Some(Err(why)) => view! { <p class="muted">{why}</p> }.into_any(),
                Some(Ok(tokens)) if tokens.tokens.is_empty() => {
                    view! { <p class="muted">"You have no tokens."</p> }.into_any()
                }
                Some(Ok(tokens)) => view! { <TokenTable tokens list message /> }.into_any(),
            }}
        </div>
    }
}

/// A token just made: the only time it is shown.
#[component]
fn MadeToken(token: TokenMade) -> impl IntoView {
    view! {
        <div class="notice-item">
            <p>"Your new token \u{201c}" {token.name} "\u{201d}. Copy it now; it is not shown again:"</p>
            <p><code data-testid="new-token">{token.token}</code></p>
        </div>
    }
}

#[component]
fn TokenTable(tokens: TokenList, list: Listed, message: RwSignal<Option<String>>) -> impl IntoView {
    let rows = tokens
        .tokens
        .into_iter()
        .map(|token| view! { <TokenRow token list message /> })
        .collect_view();
    view! {
        <table class="files tokens">
            <thead>
                <tr><th scope="col">"Name"</th><th scope="col">"Made"</th><th scope="col">"Last used"</th><th scope="col"><span class="visually-hidden">"Revoke"</span></th></tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

#[component]
fn TokenRow(token: TokenInfo, list: Listed, message: RwSignal<Option<String>>) -> impl IntoView {
    let label = format!("Revoke the token {}", token.name);
    let (id, name) = (token.id.clone(), token.name.clone());
    let on_click = move |_| door::revoke_token(id.clone(), name.clone(), list, message);
    view! {
        <tr>
            <td class="token-name">{token.name}</td>
            <td><LocalTime at=token.created_at /></td>
            <td>{match token.last_used_at {
                Some(at) => view! { <LocalTime at /> }.into_any(),
                None => view! { <span>"never"</span> }.into_any(),
            }}</td>
            <td><button type="button" aria-label=label on:click=on_click>"Revoke"</button></td>
        </tr>
    }
}
