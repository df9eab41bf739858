//! Benchmark only (`--features bench-plain-insert`, never in the default build): the same
//! note insert without any idempotency, as the baseline the idempotent create is measured
//! against — same server, same pool, same durability settings.

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;

use app::api::NewNote;

use super::new_note::ValidNewNote;
use crate::accounts::session::SignedIn;
use crate::error::ApiError;
use crate::idempotency::IdempotencyKey;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route("/bench/plain-notes", post(plain_insert))
}

/// Parses and validates like the real route, then one INSERT in autocommit mode.
async fn plain_insert(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
    body: Bytes,
) -> Result<Response, ApiError> {
    let request: NewNote =
        serde_json::from_slice(&body).map_err(|e| ApiError::InvalidJson(e.to_string()))?;
    let new_note = ValidNewNote::parse(request)?;
    // The notes table requires a unique key per note; a fresh one costs nothing here.
    let key = IdempotencyKey::parse(&uuid::Uuid::new_v4().to_string())?;
    let note = new_note.to_note();
    state
        .store
        .notes()
        .plain_insert(&viewer.user_id, &key, &new_note.fingerprint(), &note)
        .await?;
    Ok((StatusCode::CREATED, axum::Json(note)).into_response())
}
