//! Requests that change something must come from this site. Browsers say where a request
//! came from: `Sec-Fetch-Site` (`cross-site`, `same-site`, `same-origin`, `none`) and
//! `Origin`. A state-changing request (anything but GET, HEAD, OPTIONS) that a browser
//! marks as coming from another site is refused with 403 `cross-site-request` before any
//! handler runs. Programs that send neither header (scripts, the app's own tests) are
//! not browsers a page could steer, and pass. So do requests a personal access token
//! signed in (`Authorization: Bearer`): the token, not a cookie, signs them in (the
//! cookie is ignored), and a page on another site cannot attach that header without a
//! CORS preflight, which this server never grants. This layer runs after the sign-in
//! (`identify`), so what it skips on is a token that signed the request in — never the
//! mere presence of an `Authorization` header.

use axum::extract::Request;
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::records::{Credential, Viewer};

pub async fn refuse_cross_site(request: Request, next: Next) -> Response {
    if changes_state(request.method()) && !by_token(&request) && from_another_site(&request) {
        let error = ApiError::CrossSite;
        error.log(None);
        return error.into_response();
    }
    next.run(request).await
}

/// Whether a personal access token signed the request in (no cookie did).
fn by_token(request: &Request) -> bool {
    request
        .extensions()
        .get::<Viewer>()
        .is_some_and(|viewer| matches!(viewer.via, Credential::Token { .. }))
}

fn changes_state(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

fn from_another_site(request: &Request) -> bool {
    let headers = request.headers();
    if let Some(site) = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        return !matches!(site.trim(), "same-origin" | "none");
    }
    // Older browsers: the Origin, if any, must be this host.
    match headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) {
        None => false,
        Some(origin) => {
            let host = headers
                .get(header::HOST)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default();
            let origin_host = origin
                .split_once("://")
                .map(|(_, rest)| rest)
                .unwrap_or(origin);
            origin == "null" || !origin_host.eq_ignore_ascii_case(host)
        }
    }
}

#[cfg(test)]
mod tests {
    use axum::body::Body;

    use super::*;

    fn request(method: Method, headers: &[(&str, &str)]) -> Request {
        let mut builder = Request::builder().method(method).uri("/api/notes");
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder.body(Body::empty()).unwrap()
    }

    #[test]
    fn a_browser_request_from_another_site_is_cross_site() {
        let cross = request(Method::POST, &[("sec-fetch-site", "cross-site")]);
        assert!(from_another_site(&cross));
        let sibling = request(Method::POST, &[("sec-fetch-site", "same-site")]);
        assert!(from_another_site(&sibling));
        let ours = request(Method::POST, &[("sec-fetch-site", "same-origin")]);
        assert!(!from_another_site(&ours));
    }

    #[test]
    fn without_fetch_metadata_the_origin_must_be_this_host() {
        let other = request(
            Method::POST,
            &[
                ("host", "notes.example.com"),
                ("origin", "https://evil.example"),
            ],
        );
        assert!(from_another_site(&other));
        let same = request(
            Method::POST,
            &[
                ("host", "notes.example.com"),
                ("origin", "https://notes.example.com"),
            ],
        );
        assert!(!from_another_site(&same));
        assert!(!from_another_site(&request(Method::POST, &[])));
        assert!(!changes_state(&Method::GET));
    }

    #[test]
    fn only_a_token_that_signed_the_request_in_skips_the_check_not_a_bearer_header() {
        let header_only = request(
            Method::POST,
            &[
                ("sec-fetch-site", "cross-site"),
                ("authorization", "Bearer onp_anything"),
            ],
        );
        assert!(!by_token(&header_only));
        let mut by_session = request(Method::POST, &[]);
        by_session
            .extensions_mut()
            .insert(viewer(Credential::Session("hash".into())));
        assert!(!by_token(&by_session));
        let mut signed_in = request(Method::POST, &[]);
        signed_in.extensions_mut().insert(viewer(Credential::Token {
            id: "id".into(),
            digest: "hash".into(),
        }));
        assert!(by_token(&signed_in));
    }

    fn viewer(via: Credential) -> Viewer {
        Viewer {
            user_id: "ada-id".into(),
            username: "ada".into(),
            admin: false,
            via,
        }
    }
}
