//! Sessions. The cookie `oncenote_session` holds a random token (`HttpOnly`,
//! `SameSite=Lax`); over HTTPS it is `__Host-oncenote_session` and `Secure`, so no other
//! host — a sibling subdomain, a plain-HTTP page on the same name — can set or shadow
//! it. The database keeps the token's SHA-256, the user, and when
//! it expires. Every request's cookie is looked up once (`identify`); handlers ask for the
//! signed-in person with the `SignedIn` and `AdminSignedIn` extractors, which answer 401
//! (or 403) before anything else runs — so a request that fails authentication stores
//! nothing. A sign-in always makes a new token (the old one, if any, is deleted).

use std::time::Duration;

use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use app::api::OWNER_HEADER;

use super::{Viewer, tokens};
use crate::error::ApiError;
use crate::http::bearer::{Bearer, bearer};
use crate::http::client::{ClientAddr, is_https};
use crate::state::AppState;
use crate::timestamp;

/// The session cookie's name over plain HTTP.
pub const COOKIE: &str = "oncenote_session";
/// The session cookie's name over HTTPS: the `__Host-` prefix makes browsers refuse it
/// unless it is `Secure`, for `Path=/` and without a `Domain`.
pub const SECURE_COOKIE: &str = "__Host-oncenote_session";

/// The session cookie's name for a request's security.
fn cookie_name(security: CookieSecurity) -> &'static str {
    if security.0 { SECURE_COOKIE } else { COOKIE }
}

/// The session token a request brings: over HTTPS only the `__Host-` cookie (a plain one
/// could have been planted by a sibling subdomain or a plain-HTTP page), over HTTP the
/// plain one.
pub fn session_cookie(headers: &HeaderMap, security: CookieSecurity) -> Option<String> {
    cookie(headers, cookie_name(security))
}

/// Tells the person's live streams, on every replica, to check their session now (one
/// ended: a sign-out, a new password, an account disabled). Best effort: a stream also
/// checks on its own every half minute.
pub async fn sessions_ended(store: &crate::storage::Store, user_id: &str) {
    if let Err(error) = store.changes().sessions_ended(user_id).await {
        tracing::warn!(%error, "could not tell the live streams that a session ended");
    }
}

/// A session is kept alive at most this often (a write), not at every request.
const KEEP_ALIVE_EVERY: Duration = Duration::from_secs(3600);

/// Looks up the request's bearer token (see `bearer`) or else its session cookie, and
/// attaches the signed-in person, if any.
pub async fn identify(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    // A bearer replaces the cookie: the request is the token's person's or refused, and
    // its cookie is dropped so nothing further down reads it.
    match bearer(request.headers()) {
        Bearer::Absent => {}
        given => {
            let (method, path) = (request.method().clone(), request.uri().path().to_owned());
            return match super::bearer::sign_in(&state, given, &method, &path).await {
                Ok(viewer) => {
                    request.headers_mut().remove(header::COOKIE);
                    request.extensions_mut().insert(viewer);
                    next.run(request).await
                }
                Err(error) => {
                    error.log(None);
                    error.into_response()
                }
            };
        }
    }
    // A session kept alive in the database is kept alive in the browser too: its cookie
    // goes out again with the new lifetime.
    let mut renewed = None;
    let peer = request.extensions().get::<ClientAddr>().copied();
    let security = CookieSecurity(is_https(request.headers(), peer, &state.config));
    if let Some(token) = session_cookie(request.headers(), security) {
        let hash = tokens::digest(&token);
        let now = timestamp::now();
        match state
            .store
            .sessions()
            .session_viewer(&hash, &timestamp::format(now))
            .await
        {
            Ok(Some((viewer, last_seen))) => {
                if keep_alive(&state, &hash, &last_seen, now) {
                    renewed = Some(set_cookie(&token, state.config.session_lifetime, security));
                }
                request.extensions_mut().insert(viewer);
            }
            Ok(None) => {}
            Err(error) => {
                let error = ApiError::from(error);
                // Logged with the write's key (a valid one), so the failure can be traced
                // to the write the client will retry.
                let key = crate::idempotency::IdempotencyKey::from_headers(request.headers()).ok();
                error.log(key.as_ref().map(|k| k.as_str()));
                return error.into_response();
            }
        }
    }
    let mut response = next.run(request).await;
    let sets_session = response
        .headers()
        .get_all(header::SET_COOKIE)
        .iter()
        .any(|v| {
            v.as_bytes().starts_with(COOKIE.as_bytes())
                || v.as_bytes().starts_with(SECURE_COOKIE.as_bytes())
        });
    if let Some(cookie) = renewed
        && !sets_session
    {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

/// Moves a session's expiry forward once in a while, off the request's path; true when
/// it did.
fn keep_alive(
    state: &AppState,
    hash: &str,
    last_seen: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> bool {
    let stale = chrono::DateTime::parse_from_rfc3339(last_seen)
        .map(|seen| {
            now - seen.to_utc() > chrono::Duration::from_std(KEEP_ALIVE_EVERY).unwrap_or_default()
        })
        .unwrap_or(true);
    if !stale {
        return false;
    }
    let (store, hash) = (state.store.clone(), hash.to_owned());
    let expires = timestamp::format(timestamp::after(now, state.config.session_lifetime));
    tokio::spawn(async move {
        if let Err(error) = store
            .sessions()
            .touch_session(&hash, &timestamp::format(now), &expires)
            .await
        {
            tracing::warn!(%error, "could not keep a session alive");
        }
    });
    true
}

/// The value of cookie `name` in the request's `Cookie` headers.
pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.trim().to_owned())
        .filter(|value| !value.is_empty())
}

/// The signed-in person, or 401 `unauthenticated` — or 409 `signed-in-as-someone-else`
/// when the request names another person in `X-Oncenote-User`. The page's own writes
/// name the person the page was opened for, whose cookie may have been replaced since
/// (they signed out in another tab, someone else signed in): such a write is refused
/// here, before its body is read or its key claimed, so it stores nothing and stays in
/// the browser for its owner. Requests that name no one (scripts, curl) are the
/// signed-in person's, as before.
pub struct SignedIn(pub Viewer);

impl<S: Send + Sync> FromRequestParts<S> for SignedIn {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        let viewer = parts
            .extensions
            .get::<Viewer>()
            .cloned()
            .ok_or(ApiError::Unauthenticated)?;
        match parts.headers.get(OWNER_HEADER) {
            None => Ok(SignedIn(viewer)),
            Some(named) => {
                check_owner(named.to_str().ok(), &viewer)?;
                Ok(SignedIn(viewer))
            }
        }
    }
}

/// Refuses a write that names (`named`: unreadable is `None`) someone other than the
/// signed-in person.
pub fn check_owner(named: Option<&str>, viewer: &Viewer) -> Result<(), ApiError> {
    if named.map(str::trim) == Some(viewer.user_id.as_str()) {
        Ok(())
    } else {
        let error = ApiError::SignedInAsSomeoneElse;
        error.log(None);
        Err(error)
    }
}

/// A signed-in admin, or 401 / 403 `admin-only`.
pub struct AdminSignedIn(pub Viewer);

impl<S: Send + Sync> FromRequestParts<S> for AdminSignedIn {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let SignedIn(viewer) = SignedIn::from_request_parts(parts, state).await?;
        if viewer.admin {
            Ok(AdminSignedIn(viewer))
        } else {
            Err(ApiError::AdminOnly)
        }
    }
}

/// Where a request stands for cookies: over HTTPS or not.
#[derive(Clone, Copy, Debug)]
pub struct CookieSecurity(pub bool);

impl FromRequestParts<AppState> for CookieSecurity {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let peer = parts.extensions.get::<ClientAddr>().copied();
        Ok(CookieSecurity(is_https(
            &parts.headers,
            peer,
            &state.config,
        )))
    }
}

/// Starts a session for `user_id` (ending `previous`, the session the request came with,
/// if any: the token changes at every sign-in); returns the `Set-Cookie` value.
pub async fn start(
    state: &AppState,
    user_id: &str,
    previous: Option<&Viewer>,
    security: CookieSecurity,
) -> Result<HeaderValue, ApiError> {
    if let Some(previous) = previous
        && let Some(session) = previous.session()
    {
        state.store.sessions().delete_session(session).await?;
        sessions_ended(&state.store, &previous.user_id).await;
    }
    start_with(state, user_id, tokens::new_token(), security).await
}

/// Starts the session of `token` (made beforehand: a password change hands its person's
/// tokens on to it first) and answers its cookie.
pub async fn start_with(
    state: &AppState,
    user_id: &str,
    token: String,
    security: CookieSecurity,
) -> Result<HeaderValue, ApiError> {
    let now = timestamp::now();
    state
        .store
        .sessions()
        .create_session(
            &tokens::digest(&token),
            user_id,
            &timestamp::format(now),
            &timestamp::format(timestamp::after(now, state.config.session_lifetime)),
        )
        .await?;
    Ok(set_cookie(&token, state.config.session_lifetime, security))
}

/// `Set-Cookie` for a session token.
fn set_cookie(token: &str, lifetime: Duration, security: CookieSecurity) -> HeaderValue {
    let secure = if security.0 { "; Secure" } else { "" };
    let name = cookie_name(security);
    HeaderValue::from_str(&format!(
        "{name}={token}; Path=/; HttpOnly; SameSite=Lax; Max-Age={}{secure}",
        lifetime.as_secs()
    ))
    .expect("a token is hex")
}

/// `Set-Cookie` that ends the session cookie in the browser.
pub fn clear_cookie(security: CookieSecurity) -> HeaderValue {
    let secure = if security.0 { "; Secure" } else { "" };
    let name = cookie_name(security);
    HeaderValue::from_str(&format!(
        "{name}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0{secure}"
    ))
    .expect("a fixed cookie")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_cookie_is_read_among_others() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::COOKIE,
            HeaderValue::from_static("theme=dark; oncenote_session=abc123; other=1"),
        );
        assert_eq!(cookie(&headers, COOKIE).as_deref(), Some("abc123"));
        assert_eq!(cookie(&headers, "missing"), None);
    }

    #[test]
    fn a_write_may_name_only_the_signed_in_person() {
        let viewer = Viewer {
            user_id: "ada-id".into(),
            username: "ada".into(),
            admin: false,
            via: crate::records::Credential::Session("hash".into()),
        };
        assert!(check_owner(Some("ada-id"), &viewer).is_ok());
        assert!(check_owner(Some(" ada-id "), &viewer).is_ok());
        for other in [Some("bea-id"), Some(""), Some("-"), None] {
            assert!(
                matches!(
                    check_owner(other, &viewer),
                    Err(ApiError::SignedInAsSomeoneElse)
                ),
                "{other:?}"
            );
        }
    }

    #[test]
    fn the_cookie_is_http_only_same_site_lax_and_secure_over_https() {
        let plain = set_cookie("t", Duration::from_secs(60), CookieSecurity(false));
        let plain = plain.to_str().unwrap();
        assert!(plain.contains("HttpOnly") && plain.contains("SameSite=Lax"));
        assert!(!plain.contains("Secure"));
        let secure = set_cookie("t", Duration::from_secs(60), CookieSecurity(true));
        let secure = secure.to_str().unwrap();
        assert!(
            secure.starts_with("__Host-oncenote_session=t; Path=/;"),
            "{secure}"
        );
        assert!(secure.ends_with("; Secure") && !secure.contains("Domain"));
        assert!(
            clear_cookie(CookieSecurity(true))
                .to_str()
                .unwrap()
                .starts_with("__Host-")
        );
    }
}
