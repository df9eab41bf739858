//! The account pages' forms, posted by the browser itself (they work without JavaScript):
//! each does what its API route does and answers with a redirect — to where the person
//! was going, or back to the form with an error code the page turns into words (no text
//! from the request is ever reflected into the page).
//!
//! `POST /sign-in`, `/sign-out`, `/setup`, `/invite/{token}`, `/sign-up`, `/account/password`,
//! `/admin/invitations`, `/admin/users/{id}/disable` and `/enable`.

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde::Deserialize;

use super::session::{AdminSignedIn, CookieSecurity, SignedIn, clear_cookie, start, start_with};
use super::{Viewer, actions, session, setup};
use crate::error::ApiError;
use crate::http::body::read_limited;
use crate::http::client::{ClientAddr, client_ip};
use crate::http::routing::allow;
use crate::state::AppState;
use crate::timestamp;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/sign-in", allow(post(sign_in), "POST"))
        .route("/sign-out", allow(post(sign_out), "POST"))
        .route("/setup", allow(post(complete_setup), "POST"))
        .route("/invite/{token}", allow(post(accept_invitation), "POST"))
        .route("/sign-up", allow(post(sign_up), "POST"))
        .route("/account/password", allow(post(change_password), "POST"))
        .route("/admin/invitations", allow(post(invite), "POST"))
        .route("/admin/users/{id}/disable", allow(post(disable), "POST"))
        .route("/admin/users/{id}/enable", allow(post(enable), "POST"))
}

/// A redirect (303) to `to`, with a cookie when one is given.
fn redirect(to: &str, cookie: Option<HeaderValue>) -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    let headers = response.headers_mut();
    if let Ok(location) = HeaderValue::from_str(to) {
        headers.insert(header::LOCATION, location);
    }
    if let Some(cookie) = cookie {
        headers.insert(header::SET_COOKIE, cookie);
    }
    response
}

/// Back to a form with the error's code (and, when it must wait, how long).
fn back(to: &str, error: &ApiError) -> Response {
    error.log(None);
    let (_, slug) = error.status_and_slug();
    let joiner = if to.contains('?') { '&' } else { '?' };
    let retry = match error {
        ApiError::TooManyAttempts { retry_after_secs } => format!("&retry={retry_after_secs}"),
        ApiError::AttemptsCrowded => "&retry=1".to_owned(),
        _ => String::new(),
    };
    redirect(&format!("{to}{joiner}error={slug}{retry}"), None)
}

/// Where to go after signing in: a path on this site only (never another site). The path
/// must pass `app::api::local_path` and, resolved against this site as a browser would
/// resolve it, still be on this site.
pub fn safe_next(next: Option<&str>) -> String {
    let site = url::Url::parse("http://oncenote.invalid/").expect("a fixed URL");
    let stays_here = |path: &str| {
        site.join(path)
            .is_ok_and(|resolved| resolved.origin() == site.origin())
    };
    match next.and_then(app::api::local_path) {
        Some(path) if stays_here(path) => path.to_owned(),
        _ => "/".to_owned(),
    }
}

/// Reads a web form.
async fn form<T: serde::de::DeserializeOwned>(
    state: &AppState,
    headers: &HeaderMap,
    body: Body,
) -> Result<T, ApiError> {
    let bytes = read_limited(headers, body, state.config.body_timeout).await?;
    serde_urlencoded::from_bytes(&bytes).map_err(|e| ApiError::InvalidBody(e.to_string()))
}

/// Percent-encodes a path for a query value.
fn encoded(text: &str) -> String {
    serde_urlencoded::to_string([("v", text)])
        .map(|s| s.trim_start_matches("v=").to_owned())
        .unwrap_or_default()
}

#[derive(Deserialize)]
struct SignIn {
    #[serde(default)]
    username: String,
    #[serde(default)]
    password: String,
    next: Option<String>,
}

async fn sign_in(
    State(state): State<AppState>,
    peer: Option<axum::Extension<ClientAddr>>,
    previous: Option<axum::Extension<Viewer>>,
    security: CookieSecurity,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let fields: SignIn = match form(&state, &headers, body).await {
        Ok(fields) => fields,
        Err(error) => return back("/sign-in", &error),
    };
    let next = safe_next(fields.next.as_deref());
    let here = format!("/sign-in?next={}", encoded(&next));
    let client = client_ip(&headers, peer.map(|p| p.0), &state.config);
    let signed_in = async {
        let user_id = actions::sign_in(&state, &fields.username, &fields.password, client).await?;
        start(&state, &user_id, previous.as_ref().map(|p| &p.0), security).await
    };
    match signed_in.await {
        Ok(cookie) => redirect(&next, Some(cookie)),
        Err(error) => back(&here, &error),
    }
}

async fn sign_out(
    State(state): State<AppState>,
    viewer: Option<axum::Extension<Viewer>>,
    security: CookieSecurity,
) -> Response {
    if let Some(viewer) = viewer
        && let Some(session) = viewer.session()
    {
        if let Err(error) = state.store.sessions().delete_session(session).await {
            return back("/account", &error.into());
        }
        session::sessions_ended(&state.store, &viewer.user_id).await;
    }
    let mut response = redirect("/sign-in?signed_out=1", Some(clear_cookie(security)));
    // The browser's HTTP cache goes too (issue #60): what an older build sent to be kept a
    // year without asking (a person's files), and anything else of the person's in it, is
    // not there for the next person at this browser. Only "cache", never "storage": that
    // would drop the writes still waiting in localStorage for the person to sign in again
    // (the worker's caches of the person are deleted by the worker and the page). Browsers
    // take it on a redirect (Chromium does, checked), in secure contexts (HTTPS, localhost).
    response.headers_mut().insert(
        HeaderName::from_static("clear-site-data"),
        HeaderValue::from_static("\"cache\""),
    );
    response
}

#[derive(Deserialize)]
struct Setup {
    #[serde(default)]
    token: String,
    #[serde(default)]
    username: String,
    #[serde(default)]
    password: String,
}

async fn complete_setup(
    State(state): State<AppState>,
    security: CookieSecurity,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let fields: Setup = match form(&state, &headers, body).await {
        Ok(fields) => fields,
        Err(error) => return back("/setup", &error),
    };
    let done = async {
        let user_id = setup::complete(
            &state.store,
            &fields.token,
            &fields.username,
            &fields.password,
        )
        .await?;
        start(&state, &user_id, None, security).await
    };
    match done.await {
        Ok(cookie) => redirect("/", Some(cookie)),
        Err(error) => back(&format!("/setup?token={}", encoded(&fields.token)), &error),
    }
}

#[derive(Deserialize)]
struct NewAccount {
    #[serde(default)]
    username: String,
    #[serde(default)]
    password: String,
}

async fn accept_invitation(
    State(state): State<AppState>,
    Path(token): Path<String>,
    peer: Option<axum::Extension<ClientAddr>>,
    security: CookieSecurity,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let here = format!("/invite/{}", encoded(&token));
    let fields: NewAccount = match form(&state, &headers, body).await {
        Ok(fields) => fields,
        Err(error) => return back(&here, &error),
    };
    let client = client_ip(&headers, peer.map(|p| p.0), &state.config);
    let done = async {
        let user_id =
            actions::accept_invitation(&state, &token, &fields.username, &fields.password, client)
                .await?;
        start(&state, &user_id, None, security).await
    };
    match done.await {
        Ok(cookie) => redirect("/", Some(cookie)),
        Err(error) => back(&here, &error),
    }
}

async fn sign_up(
    State(state): State<AppState>,
    peer: Option<axum::Extension<ClientAddr>>,
    security: CookieSecurity,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let fields: NewAccount = match form(&state, &headers, body).await {
        Ok(fields) => fields,
        Err(error) => return back("/sign-up", &error),
    };
    let client = client_ip(&headers, peer.map(|p| p.0), &state.config);
    let done = async {
        let user_id = actions::sign_up(&state, &fields.username, &fields.password, client).await?;
        start(&state, &user_id, None, security).await
    };
    match done.await {
        Ok(cookie) => redirect("/", Some(cookie)),
        Err(error) => back("/sign-up", &error),
    }
}

#[derive(Deserialize)]
struct PasswordChange {
    #[serde(default)]
    current_password: String,
    #[serde(default)]
    new_password: String,
}

async fn change_password(
    State(state): State<AppState>,
    viewer: Result<SignedIn, ApiError>,
    security: CookieSecurity,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let SignedIn(viewer) = match viewer {
        Ok(viewer) => viewer,
        Err(_) => return redirect("/sign-in?next=/account", None),
    };
    let fields: PasswordChange = match form(&state, &headers, body).await {
        Ok(fields) => fields,
        Err(error) => return back("/account", &error),
    };
    let done = async {
        let successor = actions::change_password(
            &state,
            &viewer,
            &fields.current_password,
            &fields.new_password,
        )
        .await?;
        start_with(&state, &viewer.user_id, successor, security).await
    };
    match done.await {
        Ok(cookie) => redirect("/account?changed=password", Some(cookie)),
        Err(error) => back("/account", &error),
    }
}

async fn invite(State(state): State<AppState>, admin: Result<AdminSignedIn, ApiError>) -> Response {
    let AdminSignedIn(admin) = match admin {
        Ok(admin) => admin,
        Err(error) => return back("/admin", &error),
    };
    match actions::invite(&state, &admin).await {
        // The link is shown once, on the admin's own page.
        Ok((token, _)) => redirect(&format!("/admin?invitation={token}"), None),
        Err(error) => back("/admin", &error),
    }
}

async fn disable(
    State(state): State<AppState>,
    admin: Result<AdminSignedIn, ApiError>,
    Path(id): Path<String>,
) -> Response {
    set_disabled(state, admin, id, true).await
}

async fn enable(
    State(state): State<AppState>,
    admin: Result<AdminSignedIn, ApiError>,
    Path(id): Path<String>,
) -> Response {
    set_disabled(state, admin, id, false).await
}

async fn set_disabled(
    state: AppState,
    admin: Result<AdminSignedIn, ApiError>,
    id: String,
    disabled: bool,
) -> Response {
    let AdminSignedIn(admin) = match admin {
        Ok(admin) => admin,
        Err(error) => return back("/admin", &error),
    };
    if disabled && id == admin.user_id {
        return back(
            "/admin",
            &ApiError::ValidationFailed("an admin cannot disable their own account".into()),
        );
    }
    let now = timestamp::format(timestamp::now());
    let at = disabled.then_some(now.as_str());
    match state.store.accounts().set_disabled(&id, at).await {
        Ok(_) => {
            session::sessions_ended(&state.store, &id).await;
            redirect("/admin", None)
        }
        Err(error) => back("/admin", &error.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn after_sign_in_only_a_path_on_this_site_is_followed() {
        assert_eq!(safe_next(Some("/notes/1?x=2")), "/notes/1?x=2");
        assert_eq!(safe_next(Some("//evil.example/")), "/");
        assert_eq!(safe_next(Some("https://evil.example/")), "/");
        assert_eq!(safe_next(Some("/\\evil.example")), "/");
        assert_eq!(safe_next(Some("/\t/evil.example/x")), "/");
        assert_eq!(safe_next(Some("/\n/evil.example/x")), "/");
        assert_eq!(
            safe_next(Some("/%09/evil.example/x")),
            "/%09/evil.example/x"
        );
        assert_eq!(safe_next(None), "/");
    }
}
