//! Security headers. Pages get a Content-Security-Policy that allows only what the app
//! loads — its own wasm, JS and CSS, and inline scripts carrying this response's nonce
//! (Leptos puts the nonce on the hydration script and the resources it inlines); every
//! other answer gets a policy that allows nothing to frame it or run from it.

use axum::Router;
use axum::http::{HeaderName, HeaderValue, header};
use tower_http::set_header::SetResponseHeaderLayer;

/// The policy of a server-rendered page whose inline scripts carry `nonce`.
pub fn page_policy(nonce: &str) -> String {
    format!(
        "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; \
         style-src 'self'; img-src 'self' data:; connect-src 'self'; worker-src 'self'; \
         manifest-src 'self'; form-action 'self'; base-uri 'none'; object-src 'none'; \
         frame-ancestors 'none'"
    )
}

/// The policy of everything else (API answers, static files, the service worker): the
/// worker may fetch from this origin, nothing may frame or embed the answer.
const DEFAULT_POLICY: &str = "default-src 'self'; script-src 'self'; object-src 'none'; \
     base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// Adds the headers every answer carries (a page's own CSP, set while rendering, wins).
pub fn apply<S: Clone + Send + Sync + 'static>(router: Router<S>) -> Router<S> {
    let set = |name: HeaderName, value: &'static str| {
        SetResponseHeaderLayer::if_not_present(name, HeaderValue::from_static(value))
    };
    router
        .layer(set(header::CONTENT_SECURITY_POLICY, DEFAULT_POLICY))
        .layer(set(header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .layer(set(header::X_FRAME_OPTIONS, "DENY"))
        .layer(set(header::REFERRER_POLICY, "same-origin"))
        .layer(set(
            HeaderName::from_static("cross-origin-opener-policy"),
            "same-origin",
        ))
}
