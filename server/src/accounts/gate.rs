//! Pages that show notes need a signed-in person: anyone else is sent to sign in (or, on a
//! fresh install with no account yet, to the setup page). Every page also says whose it is
//! (`X-Oncenote-User`), so the service worker keeps each person's pages apart, never
//! serves one person's kept pages to another, and deletes them once a page names someone
//! else or nobody. Account pages say `X-Oncenote-Keep: never` and are never kept by the
//! worker. No page rendered for a signed-in person, and no account page, is stored by the
//! browser's HTTP cache (`Cache-Control: no-store`): after a sign-out, Back and the cache
//! have nothing of theirs to show the next person at that browser (issue #60). The worker
//! keeps pages in Cache Storage, which `no-store` does not reach, for reading offline.

use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use app::ssr_context::FeedSeq;
use app::worker_caches::{KEEP_HEADER, KEEP_NEVER, NOBODY};

use super::Viewer;
use crate::state::AppState;

/// The header that names a page's owner for the service worker (`-`: nobody). The
/// page's writes carry the same header, naming the person they are for (`session`).
pub const USER_HEADER: &str = app::api::OWNER_HEADER;

/// Whether a page must never be kept by a browser or the service worker: the account
/// pages carry one-time links (an invitation, a setup token) and forms, and nothing on
/// them is worth reading offline.
fn is_never_kept(path: &str) -> bool {
    matches!(
        path,
        "/account" | "/admin" | "/sign-in" | "/sign-up" | "/setup"
    ) || path.starts_with("/invite/")
}

/// Whether a path is a page of someone's notes.
fn is_private_page(path: &str) -> bool {
    matches!(
        path,
        "/" | "/trash" | "/search" | "/tags" | "/account" | "/admin"
    ) || path.starts_with("/notes/")
        || path.starts_with("/tags/")
}

pub async fn pages_need_sign_in(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let viewer = request.extensions().get::<Viewer>().cloned();
    let is_page_load = request.method() == Method::GET;
    if is_page_load && viewer.is_none() && is_private_page(request.uri().path()) {
        let to = if state.store.accounts().setup_done().await.unwrap_or(true) {
            let wanted = request
                .uri()
                .path_and_query()
                .map_or("/", |p| p.as_str())
                .to_owned();
            let wanted = serde_urlencoded::to_string([("next", wanted)]).unwrap_or_default();
            format!("/sign-in?{wanted}")
        } else {
            "/setup".to_owned()
        };
        let mut response = StatusCode::SEE_OTHER.into_response();
        if let Ok(location) = HeaderValue::from_str(&to) {
            response.headers_mut().insert(header::LOCATION, location);
        }
        return response;
    }
    let never_kept = is_never_kept(request.uri().path());
    let mut request = request;
    if is_page_load
        && let Some(viewer) = &viewer
        && is_private_page(request.uri().path())
    {
        // Read before the page's data, so following the feed from it misses nothing.
        if let Ok(seq) = state.store.changes().latest_seq(&viewer.user_id).await {
            request.extensions_mut().insert(FeedSeq(seq));
        }
    }
    let mut response = next.run(request).await;
    let is_html = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    if is_page_load && is_html {
        let signed_in = viewer.is_some();
        let owner = viewer.map_or(NOBODY.to_owned(), |v| v.user_id);
        let headers = response.headers_mut();
        if let Ok(owner) = HeaderValue::from_str(&owner) {
            headers.insert(USER_HEADER, owner);
        }
        if never_kept {
            headers.insert(KEEP_HEADER, HeaderValue::from_static(KEEP_NEVER));
        }
        if is_never_stored(signed_in, never_kept) {
            headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        }
    }
    response
}

/// Whether the browser's HTTP cache must not store a page: one rendered for a signed-in
/// person holds their notes (or their name, at least), and an account page one-time links.
/// A page for nobody that is no account page (none today) may be stored.
fn is_never_stored(signed_in: bool, never_kept: bool) -> bool {
    signed_in || never_kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pages_of_notes_are_private_and_the_way_in_is_not() {
        for path in [
            "/",
            "/notes/abc",
            "/notes/abc/history",
            "/notes/abc/history/3",
            "/trash",
            "/search",
            "/tags",
            "/tags/work",
            "/tags/work/meetings",
            "/account",
            "/admin",
        ] {
            assert!(is_private_page(path), "{path}");
        }
        for path in [
            "/sign-in",
            "/sign-up",
            "/setup",
            "/invite/abc",
            "/sw.js",
            "/pkg/x.wasm",
            "/healthz",
        ] {
            assert!(!is_private_page(path), "{path}");
        }
    }

    #[test]
    fn the_account_pages_are_never_kept_and_the_notes_pages_are() {
        for path in [
            "/account",
            "/admin",
            "/sign-in",
            "/sign-up",
            "/setup",
            "/invite/abc",
        ] {
            assert!(is_never_kept(path), "{path}");
        }
        for path in ["/", "/notes/abc", "/trash", "/search", "/tags", "/tags/a/b"] {
            assert!(!is_never_kept(path), "{path}");
        }
    }

    #[test]
    fn every_page_for_a_signed_in_person_and_every_account_page_is_never_stored_by_the_browser() {
        assert!(is_never_stored(true, false), "a page of notes, signed in");
        assert!(is_never_stored(true, true), "an account page, signed in");
        assert!(is_never_stored(false, true), "the sign-in page");
        assert!(!is_never_stored(false, false));
    }
}
