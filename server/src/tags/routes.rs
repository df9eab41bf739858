//! The tags over HTTP: `GET /api/tags` (with counts) and `POST /api/tags/rename`.

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

use app::api::{TAGS_PATH, TagList, TagRename, TagRenamed};

use super::rename::{RenameTag, ValidRename};
use crate::accounts::session::SignedIn;
use crate::error::ApiError;
use crate::http::body::parse_json;
use crate::http::routing::allow;
use crate::idempotency::{Payload, StoredAnswer, prepared_write_request};
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(TAGS_PATH, allow(get(list_tags), "GET"))
        .route("/api/tags/rename", allow(post(rename_tag), "POST"))
}

/// `GET /api/tags`: every tag of the notes outside the trash, by name, with counts.
async fn list_tags(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
) -> Result<Response, ApiError> {
    let tags = state.store.tags().tag_counts(&viewer.user_id).await?;
    Ok(axum::Json(TagList { tags }).into_response())
}

/// `POST /api/tags/rename`.
#[tracing::instrument(name = "rename_tag", skip_all, fields(key = tracing::field::Empty))]
async fn rename_tag(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let scope = &viewer.user_id;
    let (max_chars, wait) = (state.config.rename_max_chars, state.config.key_wait);
    prepared_write_request(
        &state,
        scope,
        &headers,
        body,
        Payload::Json,
        |bytes| {
            let request: TagRename = parse_json(bytes, "a tag rename")?;
            ValidRename::parse(request)
        },
        async |rename| RenameTag::prepare(&state.store, scope, rename, max_chars, wait).await,
        renamed,
    )
    .await
}

/// 200 with how many notes the rename changed.
fn renamed(done: &TagRenamed) -> Result<StoredAnswer, ApiError> {
    StoredAnswer::json(axum::http::StatusCode::OK, done, Vec::new())
        .map_err(|e| ApiError::Internal(e.into()))
}
