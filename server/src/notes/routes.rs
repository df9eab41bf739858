//! The notes API over HTTP: parse and check the request, hand the write to the
//! idempotency pipeline once, answer. `POST /api/notes` (idempotent create),
//! `GET /api/notes`, `GET /api/notes/{id}`.

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get};
use serde::Deserialize;

use app::api::{NOTES_PATH, NewNote};

use super::cursor::Cursor;
use super::new_note::ValidNewNote;
use super::writes::{CreateNote, CreateReply, etag};
use crate::error::ApiError;
use crate::http::body::{parse_json, read_limited, require_json};
use crate::idempotency::{self, IdempotencyKey, SHARED_SCOPE};
use crate::state::AppState;

/// Notes per page when the client does not say, and the most it may ask for.
const DEFAULT_PAGE: u32 = 50;
const MAX_PAGE: u32 = 200;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            NOTES_PATH,
            allow(get(list_notes).post(create_note), "GET, POST"),
        )
        .route("/api/notes/{id}", allow(get(get_note), "GET"))
}

/// A route's other methods answer 405 with `Allow` naming the ones it has.
fn allow(route: MethodRouter<AppState>, methods: &'static str) -> MethodRouter<AppState> {
    route.fallback(move || async move { ApiError::MethodNotAllowed { allow: methods } })
}

/// `POST /api/notes`. Every check runs before any write, in the protocol's order; then
/// the create runs through the idempotency pipeline.
#[tracing::instrument(name = "create_note", skip_all, fields(key = tracing::field::Empty))]
async fn create_note(State(state): State<AppState>, headers: HeaderMap, body: Body) -> Response {
    let mut key = None;
    match create(&state, &headers, body, &mut key).await {
        Ok(response) => response,
        Err(error) => {
            error.log(key.as_ref().map(IdempotencyKey::as_str));
            error.into_response()
        }
    }
}

async fn create(
    state: &AppState,
    headers: &HeaderMap,
    body: Body,
    key_out: &mut Option<IdempotencyKey>,
) -> Result<Response, ApiError> {
    let bytes = read_limited(headers, body, state.config.body_timeout).await?;
    let key = IdempotencyKey::from_headers(headers)?;
    tracing::Span::current().record("key", key.as_str());
    *key_out = Some(key.clone());
    require_json(headers)?;
    let request: NewNote = parse_json(&bytes, "a note")?;
    let create = CreateNote {
        note: ValidNewNote::parse(request)?,
        reply: CreateReply::Json,
    };
    let answer = idempotency::execute(state, SHARED_SCOPE, &key, &create).await?;
    if answer.replayed {
        tracing::info!(status = answer.stored.status, "replayed a stored answer");
    }
    Ok(answer.into_response())
}

#[derive(Deserialize)]
struct ListParams {
    limit: Option<String>,
    cursor: Option<String>,
}

/// `GET /api/notes?limit=&cursor=`: newest first.
async fn list_notes(State(state): State<AppState>, uri: Uri) -> Result<Response, ApiError> {
    let params = Query::<ListParams>::try_from_uri(&uri)
        .map_err(|e| ApiError::InvalidQuery(e.body_text()))?
        .0;
    let limit = match params.limit.as_deref() {
        None => DEFAULT_PAGE,
        Some(text) => match text.parse::<u32>() {
            Ok(n) if (1..=MAX_PAGE).contains(&n) => n,
            _ => {
                return Err(ApiError::InvalidQuery(format!(
                    "limit must be a whole number from 1 to {MAX_PAGE}, got {text:?}"
                )));
            }
        },
    };
    let cursor = params.cursor.as_deref().map(Cursor::decode).transpose()?;
    let page = state
        .store
        .list_notes(SHARED_SCOPE, limit, cursor.as_ref())
        .await?;
    Ok(axum::Json(page).into_response())
}

/// `GET /api/notes/{id}`, with the note's version as its `ETag`.
async fn get_note(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    match state.store.get_note(SHARED_SCOPE, &id).await? {
        Some(note) => Ok(([(header::ETAG, etag(&note))], axum::Json(note)).into_response()),
        None => Err(ApiError::NotFound(format!("no note has the id {id:?}"))),
    }
}
