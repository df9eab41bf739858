//! Signing a request in with a personal access token (`Authorization: Bearer onp_…`).
//!
//! - The token is looked up by its SHA-256: one indexed query joined with its person, who
//!   must not be disabled. Unknown, revoked, malformed → 401 `invalid-token` with
//!   `WWW-Authenticate: Bearer`; the request's cookie is never used instead (a script
//!   whose token was revoked must learn it, not act as whoever's browser it runs in).
//! - A token opens the notes and what hangs off them only ([`token_opens`]): notes,
//!   trash, search, tags, changes, events, files, export and import, and `GET /api/me`.
//!   Everything else — sessions, passwords, tokens, invitations, users, setup, the pages —
//!   is 403 `token-not-allowed`: a leaked token cannot lock its person out or make more.
//! - When it was last used is written at most once a minute per token, off the request's
//!   path, not at every request (nor at every request of a burst: [`NOTED`]).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::http::Method;

use super::tokens;
use crate::error::ApiError;
use crate::http::bearer::Bearer;
use crate::records::{Credential, Viewer};
use crate::state::AppState;
use crate::timestamp;

/// A token's last use is written at most this often.
const LAST_USED_EVERY: Duration = Duration::from_secs(60);

/// The routes a token opens: each path itself and everything under it.
const TOKEN_ROUTES: [&str; 10] = [
    "/api/notes",
    "/api/trash",
    "/api/search",
    "/api/tags",
    "/api/changes",
    "/api/events",
    "/api/files",
    "/files",
    "/api/export",
    "/api/import",
];

/// Whether a personal access token may be used for `method` on `path`.
pub fn token_opens(method: &Method, path: &str) -> bool {
    let under = |route: &str| {
        path.strip_prefix(route)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    };
    TOKEN_ROUTES.iter().any(|route| under(route))
        || (path == "/api/me" && matches!(*method, Method::GET | Method::HEAD))
}

/// The person a request's bearer signs in, for `method` on `path`.
pub async fn sign_in(
    state: &AppState,
    given: Bearer<'_>,
    method: &Method,
    path: &str,
) -> Result<Viewer, ApiError> {
    let token = match given {
        Bearer::Token(token) if tokens::is_api_token_shaped(token) => token,
        _ => return Err(ApiError::InvalidToken),
    };
    let digest = tokens::digest(token);
    let (viewer, last_used) = state
        .store
        .api_tokens()
        .token_viewer(&digest)
        .await?
        .ok_or(ApiError::InvalidToken)?;
    if !token_opens(method, path) {
        return Err(ApiError::TokenNotAllowed);
    }
    if let Credential::Token { id, .. } = &viewer.via {
        note_use(state, id, last_used.as_deref());
    }
    Ok(viewer)
}

/// The tokens this process noted a use of lately, and when: a burst of requests with a
/// token not used for a while (all reading the same old `last_used_at`) sends one update,
/// not one each.
static NOTED: Mutex<Option<HashMap<String, Instant>>> = Mutex::new(None);
/// Past this many tokens in [`NOTED`], the ones noted longer ago than a minute are dropped.
const NOTED_AT_MOST: usize = 4096;

/// Whether this process should write a use of token `id` now (and it is marked as done).
fn first_use_this_minute(id: &str) -> bool {
    let now = Instant::now();
    let mut noted = NOTED.lock().unwrap_or_else(PoisonError::into_inner);
    let noted = noted.get_or_insert_with(HashMap::new);
    if noted
        .get(id)
        .is_some_and(|at| now.duration_since(*at) < LAST_USED_EVERY)
    {
        return false;
    }
    if noted.len() >= NOTED_AT_MOST {
        noted.retain(|_, at| now.duration_since(*at) < LAST_USED_EVERY);
    }
    noted.insert(id.to_owned(), now);
    true
}

/// Writes that the token was used now, unless it was within [`LAST_USED_EVERY`]. The
/// update itself checks again, so requests at once on several replicas write it once.
fn note_use(state: &AppState, id: &str, last_used: Option<&str>) {
    let now = timestamp::now();
    let since =
        timestamp::format(now - chrono::Duration::from_std(LAST_USED_EVERY).unwrap_or_default());
    if last_used.is_some_and(|used| used >= since.as_str()) || !first_use_this_minute(id) {
        return;
    }
    let (store, id) = (state.store.clone(), id.to_owned());
    tokio::spawn(async move {
        if let Err(error) = store
            .api_tokens()
            .touch_api_token(&id, &timestamp::format(now), &since)
            .await
        {
            tracing::warn!(%error, "could not note when a token was used");
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_of_requests_with_one_token_notes_its_use_once() {
        let id = uuid::Uuid::new_v4().to_string();
        assert!(first_use_this_minute(&id));
        assert!(!first_use_this_minute(&id));
        assert!(first_use_this_minute(&format!("{id}-other")));
    }

    #[test]
    fn a_token_opens_the_notes_and_their_files_and_nothing_of_the_account() {
        for path in [
            "/api/notes",
            "/api/notes/abc/restore",
            "/api/trash",
            "/api/search",
            "/api/tags/rename",
            "/api/changes",
            "/api/events",
            "/api/files/00ff",
            "/files/00ff",
            "/api/export",
            "/api/import",
        ] {
            assert!(token_opens(&Method::POST, path), "{path}");
        }
        assert!(token_opens(&Method::GET, "/api/me"));
        for (method, path) in [
            (Method::PUT, "/api/me"),
            (Method::PUT, "/api/me/password"),
            (Method::POST, "/api/session"),
            (Method::DELETE, "/api/session"),
            (Method::GET, "/api/tokens"),
            (Method::DELETE, "/api/tokens/x"),
            (Method::POST, "/api/invitations"),
            (Method::GET, "/api/users"),
            (Method::POST, "/api/setup"),
            (Method::GET, "/"),
            (Method::GET, "/account"),
            (Method::POST, "/account/password"),
            (Method::GET, "/api/notesx"),
            (Method::GET, "/filesystem"),
        ] {
            assert!(!token_opens(&method, path), "{method} {path}");
        }
    }
}
