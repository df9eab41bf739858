//! Personal access tokens over HTTP (PROTOCOL.md, "API tokens"):
//!
//! - `POST /api/tokens` `{"name"}` → 201 `TokenMade`: the only time the token is shown;
//!   the database keeps its SHA-256. No `Idempotency-Key`: replaying the answer would
//!   mean keeping the token itself, and a create whose answer was lost leaves a token no
//!   one knows, which its person sees in the list and revokes.
//! - `GET /api/tokens` → `TokenList`, newest first, never a secret.
//! - `DELETE /api/tokens/{id}` → 204; 404 for an id that is not one of the person's
//!   tokens (unknown, someone else's, revoked already: one answer for all three).
//!
//! Only a session manages tokens: a token is refused here (403 `token-not-allowed`), by
//! the bearer sign-in first and by these handlers again.

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};

use app::api::{NewToken, TOKEN_NAME_MAX_CHARS, TOKENS_PATH, TokenList, TokenMade};
use app::components::account_tokens::{NEEDS_SCRIPT, TOKENS_FORM_PATH};

use super::session::{SignedIn, sessions_ended};
use super::{Viewer, tokens};
use crate::error::ApiError;
use crate::http::body::{parse_json, read_limited, require_json};
use crate::http::routing::allow;
use crate::state::AppState;
use crate::storage::store::api_tokens::{NewApiToken, TokenMinted};
use crate::timestamp;

/// Most tokens one person holds: enough for every script and device, few enough that a
/// runaway script making them stops soon.
pub const TOKENS_PER_PERSON: usize = 50;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            TOKENS_PATH,
            allow(get(list_tokens).post(create_token), "GET, POST"),
        )
        .route("/api/tokens/{id}", allow(delete(revoke_token), "DELETE"))
        .route(TOKENS_FORM_PATH, allow(post(without_script), "POST"))
}

/// A token's name: trimmed, 1 to [`TOKEN_NAME_MAX_CHARS`] characters, no control
/// characters (a name is shown in the list and in logs, on one line).
pub fn valid_token_name(name: &str) -> Result<String, ApiError> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > TOKEN_NAME_MAX_CHARS {
        return Err(ApiError::ValidationFailed(format!(
            "a token's name has 1 to {TOKEN_NAME_MAX_CHARS} characters"
        )));
    }
    if name.chars().any(char::is_control) {
        return Err(ApiError::ValidationFailed(
            "a token's name holds no control characters (line breaks, tabs, …)".into(),
        ));
    }
    Ok(name.to_owned())
}

/// The person, if a session signed them in; a token manages no tokens.
fn by_session(viewer: Viewer) -> Result<Viewer, ApiError> {
    match viewer.session() {
        Some(_) => Ok(viewer),
        None => Err(ApiError::TokenNotAllowed),
    }
}

/// An answer that must not be kept by any cache (it names or holds tokens).
fn never_kept(status: StatusCode, body: impl serde::Serialize) -> Response {
    let mut response = (status, axum::Json(body)).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Makes a token for the person signed in by a session — which must still stand when the
/// token is stored: 401 if it ended (signed out, password changed, person disabled) while
/// the request's body was on its way.
pub async fn make_token(
    state: &AppState,
    viewer: &Viewer,
    name: &str,
) -> Result<TokenMade, ApiError> {
    let session = viewer.session().ok_or(ApiError::TokenNotAllowed)?;
    let name = valid_token_name(name)?;
    let token = tokens::new_api_token();
    let id = uuid::Uuid::new_v4().to_string();
    let created_at = timestamp::format(timestamp::now());
    let minted = state
        .store
        .api_tokens()
        .create_api_token(
            NewApiToken {
                id: &id,
                user_id: &viewer.user_id,
                session,
                name: &name,
                digest: &tokens::digest(&token),
                created_at: &created_at,
            },
            i64::try_from(TOKENS_PER_PERSON).unwrap_or(i64::MAX),
        )
        .await?;
    match minted {
        TokenMinted::Made => Ok(TokenMade {
            id,
            name,
            token,
            created_at,
        }),
        TokenMinted::TooMany => Err(ApiError::TooManyTokens(TOKENS_PER_PERSON)),
        TokenMinted::SessionEnded => Err(ApiError::Unauthenticated),
    }
}

/// Revokes one of the signed-in person's tokens, and ends the live streams it opened.
pub async fn revoke(state: &AppState, viewer: &Viewer, id: &str) -> Result<(), ApiError> {
    if !state
        .store
        .api_tokens()
        .delete_api_token(&viewer.user_id, id)
        .await?
    {
        return Err(ApiError::NotFound(format!(
            "you have no token with the id {id:?}"
        )));
    }
    sessions_ended(&state.store, &viewer.user_id).await;
    Ok(())
}

/// `POST /api/tokens`.
async fn create_token(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let viewer = by_session(viewer)?;
    let bytes = read_limited(&headers, body, state.config.body_timeout).await?;
    require_json(&headers)?;
    let new: NewToken = parse_json(&bytes, "a token's name")?;
    let made = make_token(&state, &viewer, &new.name).await?;
    Ok(never_kept(StatusCode::CREATED, made))
}

/// `POST /account/tokens`: the token form sent without JavaScript. It makes nothing (the
/// token would have to be shown in the answer, which a redirect cannot carry, nor a page
/// any cache may keep) and goes back to the form, which says why; its body is not read.
async fn without_script() -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    if let Ok(back) =
        HeaderValue::from_str(&format!("/account?tokens={NEEDS_SCRIPT}#tokens-heading"))
    {
        response.headers_mut().insert(header::LOCATION, back);
    }
    response
}

/// `GET /api/tokens`.
async fn list_tokens(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
) -> Result<Response, ApiError> {
    let viewer = by_session(viewer)?;
    let tokens = state
        .store
        .api_tokens()
        .list_api_tokens(&viewer.user_id)
        .await?;
    Ok(never_kept(StatusCode::OK, TokenList { tokens }))
}

/// `DELETE /api/tokens/{id}`.
async fn revoke_token(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let viewer = by_session(viewer)?;
    revoke(&state, &viewer, &id).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_name_is_trimmed_short_and_on_one_line() {
        assert_eq!(
            valid_token_name("  backup script ").unwrap(),
            "backup script"
        );
        assert_eq!(
            valid_token_name(&"é".repeat(TOKEN_NAME_MAX_CHARS)).unwrap(),
            "é".repeat(TOKEN_NAME_MAX_CHARS)
        );
        for bad in [
            String::new(),
            "   ".into(),
            "x".repeat(TOKEN_NAME_MAX_CHARS + 1),
            "two\nlines".into(),
            "tab\there".into(),
            "nul\0".into(),
        ] {
            assert!(
                matches!(valid_token_name(&bad), Err(ApiError::ValidationFailed(_))),
                "{bad:?}"
            );
        }
    }
}
