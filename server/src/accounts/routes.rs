//! The accounts API (PROTOCOL.md v2 › Accounts):
//!
//! - `POST /api/session` sign in · `DELETE /api/session` sign out · `GET /api/me`
//! - `PUT /api/me/password` · `POST /api/setup` (the first admin, from the setup link)
//! - `POST /api/invitations` (admin) · `POST /api/invitations/{token}/accept`
//! - `POST /api/users` (sign up, where open) · `GET /api/users` (admin)
//! - `POST /api/users/{id}/disable` and `/enable` (admin)
//!
//! A person's export and import are notes, not accounts: `notes::transfer`.

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use serde::{Deserialize, Serialize};

use super::session::{AdminSignedIn, CookieSecurity, SignedIn, clear_cookie, start, start_with};
use super::{Viewer, actions, session, setup};
use crate::error::ApiError;
use crate::http::body::{parse_json, read_limited, require_json};
use crate::http::client::{ClientAddr, client_ip};
use crate::http::routing::allow;
use crate::state::AppState;
use crate::timestamp;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/api/session",
            allow(post(sign_in).delete(sign_out), "POST, DELETE"),
        )
        .route("/api/me", allow(get(me), "GET"))
        .route("/api/me/password", allow(put(change_password), "PUT"))
        .route("/api/setup", allow(post(complete_setup), "POST"))
        .route("/api/invitations", allow(post(invite), "POST"))
        .route(
            "/api/invitations/{token}/accept",
            allow(post(accept_invitation), "POST"),
        )
        .route(
            "/api/users",
            allow(get(list_users).post(sign_up), "GET, POST"),
        )
        .route("/api/users/{id}/disable", allow(post(disable_user), "POST"))
        .route("/api/users/{id}/enable", allow(post(enable_user), "POST"))
}

#[derive(Deserialize)]
struct Credentials {
    username: String,
    password: String,
}

/// Reads a JSON body of an accounts request.
async fn json<T: serde::de::DeserializeOwned>(
    state: &AppState,
    headers: &HeaderMap,
    body: Body,
    what: &str,
) -> Result<T, ApiError> {
    let bytes = read_limited(headers, body, state.config.body_timeout).await?;
    require_json(headers)?;
    parse_json(&bytes, what)
}

/// An answer that starts a session: `status` with its cookie.
fn with_session(status: StatusCode, cookie: axum::http::HeaderValue) -> Response {
    (status, [(header::SET_COOKIE, cookie)]).into_response()
}

async fn sign_in(
    State(state): State<AppState>,
    peer: Option<axum::Extension<ClientAddr>>,
    previous: Option<axum::Extension<Viewer>>,
    security: CookieSecurity,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let credentials: Credentials =
        json(&state, &headers, body, "a username and a password").await?;
    let client = client_ip(&headers, peer.map(|p| p.0), &state.config);
    let user_id =
        actions::sign_in(&state, &credentials.username, &credentials.password, client).await?;
    let cookie = start(&state, &user_id, previous.as_ref().map(|p| &p.0), security).await?;
    Ok(with_session(StatusCode::NO_CONTENT, cookie))
}

async fn sign_out(
    State(state): State<AppState>,
    viewer: Option<axum::Extension<Viewer>>,
    security: CookieSecurity,
) -> Result<Response, ApiError> {
    if let Some(viewer) = viewer
        && let Some(session) = viewer.session()
    {
        state.store.sessions().delete_session(session).await?;
        session::sessions_ended(&state.store, &viewer.user_id).await;
    }
    Ok(with_session(StatusCode::NO_CONTENT, clear_cookie(security)))
}

async fn me(SignedIn(viewer): SignedIn) -> Response {
    axum::Json(app::api::Me {
        user_id: viewer.user_id,
        username: viewer.username,
        admin: viewer.admin,
    })
    .into_response()
}

#[derive(Deserialize)]
struct PasswordChange {
    current_password: String,
    new_password: String,
}

/// `PUT /api/me/password`: every session of the user ends; this request gets a new one.
async fn change_password(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
    security: CookieSecurity,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let change: PasswordChange = json(&state, &headers, body, "a password change").await?;
    let successor = actions::change_password(
        &state,
        &viewer,
        &change.current_password,
        &change.new_password,
    )
    .await?;
    let cookie = start_with(&state, &viewer.user_id, successor, security).await?;
    Ok(with_session(StatusCode::NO_CONTENT, cookie))
}

#[derive(Deserialize)]
struct SetupRequest {
    token: String,
    username: String,
    password: String,
}

async fn complete_setup(
    State(state): State<AppState>,
    security: CookieSecurity,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let request: SetupRequest = json(&state, &headers, body, "a setup").await?;
    let user_id = setup::complete(
        &state.store,
        &request.token,
        &request.username,
        &request.password,
    )
    .await?;
    let cookie = start(&state, &user_id, None, security).await?;
    Ok(with_session(StatusCode::CREATED, cookie))
}

#[derive(Serialize)]
struct Invitation {
    token: String,
    url: String,
    expires_at: String,
}

/// The address this request reached, for links sent back (`http://host:port`).
pub fn base_url(headers: &HeaderMap, security: CookieSecurity) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("localhost");
    let scheme = if security.0 { "https" } else { "http" };
    format!("{scheme}://{host}")
}

async fn invite(
    State(state): State<AppState>,
    AdminSignedIn(admin): AdminSignedIn,
    security: CookieSecurity,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (token, expires_at) = actions::invite(&state, &admin).await?;
    let url = actions::invitation_url(&state, &base_url(&headers, security), &token);
    Ok((
        StatusCode::CREATED,
        axum::Json(Invitation {
            token,
            url,
            expires_at,
        }),
    )
        .into_response())
}

async fn accept_invitation(
    State(state): State<AppState>,
    Path(token): Path<String>,
    peer: Option<axum::Extension<ClientAddr>>,
    security: CookieSecurity,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let credentials: Credentials =
        json(&state, &headers, body, "a username and a password").await?;
    let client = client_ip(&headers, peer.map(|p| p.0), &state.config);
    let user_id = actions::accept_invitation(
        &state,
        &token,
        &credentials.username,
        &credentials.password,
        client,
    )
    .await?;
    let cookie = start(&state, &user_id, None, security).await?;
    Ok(with_session(StatusCode::CREATED, cookie))
}

async fn sign_up(
    State(state): State<AppState>,
    peer: Option<axum::Extension<ClientAddr>>,
    security: CookieSecurity,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let credentials: Credentials =
        json(&state, &headers, body, "a username and a password").await?;
    let client = client_ip(&headers, peer.map(|p| p.0), &state.config);
    let user_id =
        actions::sign_up(&state, &credentials.username, &credentials.password, client).await?;
    let cookie = start(&state, &user_id, None, security).await?;
    Ok(with_session(StatusCode::CREATED, cookie))
}

async fn list_users(
    State(state): State<AppState>,
    AdminSignedIn(_): AdminSignedIn,
) -> Result<Response, ApiError> {
    let users = state.store.accounts().list_users().await?;
    Ok(axum::Json(serde_json::json!({ "users": users })).into_response())
}

async fn disable_user(
    State(state): State<AppState>,
    AdminSignedIn(admin): AdminSignedIn,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    if id == admin.user_id {
        return Err(ApiError::ValidationFailed(
            "an admin cannot disable their own account".into(),
        ));
    }
    let now = timestamp::format(timestamp::now());
    if !state.store.accounts().set_disabled(&id, Some(&now)).await? {
        return Err(ApiError::NotFound(format!("no user has the id {id:?}")));
    }
    session::sessions_ended(&state.store, &id).await;
    Ok(StatusCode::NO_CONTENT.into_response())
}

async fn enable_user(
    State(state): State<AppState>,
    AdminSignedIn(_): AdminSignedIn,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    if !state.store.accounts().set_disabled(&id, None).await? {
        return Err(ApiError::NotFound(format!("no user has the id {id:?}")));
    }
    Ok(StatusCode::NO_CONTENT.into_response())
}
