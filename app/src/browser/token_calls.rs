//! The account page's personal access tokens: list (`GET /api/tokens`), make
//! (`POST /api/tokens`), revoke (`DELETE /api/tokens/{id}`) — each naming the page's
//! person, so the server refuses when someone else has signed in on this browser since.

use leptos::prelude::*;

use super::namespace;
use crate::api::{NewToken, OWNER_HEADER, Problem, TOKENS_PATH, TokenList, TokenMade};

/// What one of these calls came back with: the answer, or why it failed, in words.
type Outcome<T> = Result<T, String>;

/// The request, naming the page's person.
fn named(request: gloo_net::http::RequestBuilder) -> gloo_net::http::RequestBuilder {
    match namespace::user().or_else(namespace::read_user_from_page) {
        Some(owner) => request.header(OWNER_HEADER, &owner),
        None => request,
    }
}

/// Why a call failed, for the page: the server's own detail when it gave one.
async fn why(what: &str, response: gloo_net::http::Response) -> String {
    match response.json::<Problem>().await {
        Ok(problem) => format!("{what}: {}.", problem.detail),
        Err(_) => format!("{what} (the server answered {}).", response.status()),
    }
}

async fn list() -> Outcome<TokenList> {
    let what = "Your tokens could not be read";
    match named(gloo_net::http::Request::get(TOKENS_PATH))
        .send()
        .await
    {
        Ok(response) if response.ok() => response
            .json::<TokenList>()
            .await
            .map_err(|_| format!("{what}.")),
        Ok(response) => Err(why(what, response).await),
        Err(_) => Err(format!("{what}: the server could not be reached.")),
    }
}

/// Reads the list into `into` (or why it could not be read).
pub fn load_tokens(into: RwSignal<Option<Outcome<TokenList>>>) {
    leptos::task::spawn_local(async move { into.set(Some(list().await)) });
}

/// Makes a token named `name`: the token goes to `made` (shown once), the list is read
/// again; a refusal goes to `message`.
pub fn make_token(
    name: String,
    list_into: RwSignal<Option<Outcome<TokenList>>>,
    made: RwSignal<Option<TokenMade>>,
    message: RwSignal<Option<String>>,
) {
    leptos::task::spawn_local(async move {
        let what = "The token was not made";
        let request = named(gloo_net::http::Request::post(TOKENS_PATH)).json(&NewToken { name });
        let sent = match request {
            Ok(request) => request.send().await,
            Err(_) => {
                message.set(Some(format!("{what}.")));
                return;
            }
        };
        match sent {
            Ok(response) if response.status() == 201 => match response.json::<TokenMade>().await {
                Ok(token) => {
                    made.set(Some(token));
                    message.set(None);
                }
                Err(_) => message.set(Some(format!("{what}: its answer could not be read."))),
            },
            Ok(response) => message.set(Some(why(what, response).await)),
            Err(_) => message.set(Some(format!("{what}: the server could not be reached."))),
        }
        list_into.set(Some(list().await));
    });
}

/// Revokes the token `id` (after asking), then reads the list again.
pub fn revoke_token(
    id: String,
    name: String,
    list_into: RwSignal<Option<Outcome<TokenList>>>,
    message: RwSignal<Option<String>>,
) {
    let question =
        format!("Revoke the token \u{201c}{name}\u{201d}? Scripts using it stop working.");
    let go = web_sys::window()
        .and_then(|w| w.confirm_with_message(&question).ok())
        .unwrap_or(false);
    if !go {
        return;
    }
    leptos::task::spawn_local(async move {
        let what = "The token was not revoked";
        let path = format!(
            "{TOKENS_PATH}/{}",
            String::from(js_sys::encode_uri_component(&id))
        );
        match named(gloo_net::http::Request::delete(&path)).send().await {
            Ok(response) if response.status() == 204 || response.status() == 404 => {
                message.set(None)
            }
            Ok(response) => message.set(Some(why(what, response).await)),
            Err(_) => message.set(Some(format!("{what}: the server could not be reached."))),
        }
        list_into.set(Some(list().await));
    });
}
