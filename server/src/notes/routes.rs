//! The notes API: `POST /api/notes` (idempotent create), `GET /api/notes`,
//! `GET /api/notes/{id}`.

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Deserialize;

use app::api::{IDEMPOTENT_REPLAYED_HEADER, NOTES_PATH, NewNote};

use super::new_note::ValidNewNote;
use super::store::{self, Cursor};
use crate::error::ApiError;
use crate::idempotency::{self, Claim, IdempotencyKey, Pass, SHARED_SCOPE, StoredResponse};
use crate::state::AppState;

/// The largest request body accepted: the longest note with room for JSON escaping.
pub const BODY_LIMIT_BYTES: usize = 256 * 1024;
/// Notes per page when the client does not say, and the most it may ask for.
const DEFAULT_PAGE: u32 = 50;
const MAX_PAGE: u32 = 200;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            NOTES_PATH,
            get(list_notes)
                .post(create_note)
                .fallback(method_not_allowed),
        )
        .route(
            "/api/notes/{id}",
            get(get_note).fallback(method_not_allowed),
        )
}

/// `POST /api/notes`. Every check runs before any write, in the protocol's order; then
/// claim, insert and stored answer share one transaction.
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
    // A declared length over the limit is refused before waiting for a byte of it.
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|length| length > BODY_LIMIT_BYTES as u64) {
        return Err(ApiError::PayloadTooLarge {
            limit: BODY_LIMIT_BYTES,
        });
    }
    let bytes = axum::body::to_bytes(body, BODY_LIMIT_BYTES)
        .await
        .map_err(|_| ApiError::PayloadTooLarge {
            limit: BODY_LIMIT_BYTES,
        })?;
    let key = IdempotencyKey::from_headers(headers)?;
    tracing::Span::current().record("key", key.as_str());
    *key_out = Some(key.clone());
    require_json(headers)?;
    let request: NewNote = serde_json::from_slice(&bytes)
        .map_err(|e| ApiError::InvalidJson(format!("the body is not a note: {e}")))?;
    let new_note = ValidNewNote::parse(request)?;
    let fingerprint = new_note.fingerprint();

    // A committed answer never changes: a retry is answered from a plain read.
    if let Some(stored) =
        idempotency::find_stored(&state.pool, SHARED_SCOPE, &key, &fingerprint).await?
    {
        return Ok(replay(stored));
    }
    // Requests with this key running right now: let the first finish, then read its answer.
    let _pass = match state.key_gates.pass(key.as_str()).await {
        Pass::Leader(held) => Some(held),
        Pass::Follower => {
            if let Some(stored) =
                idempotency::find_stored(&state.pool, SHARED_SCOPE, &key, &fingerprint).await?
            {
                return Ok(replay(stored));
            }
            None
        }
    };

    let note = new_note.to_note();
    let answer = stored_answer(StatusCode::CREATED, &note)?;
    let ttl = state.config.idempotency_ttl;
    let mut tx =
        match idempotency::try_claim(&state.pool, SHARED_SCOPE, &key, &fingerprint, ttl, &answer)
            .await?
        {
            Claim::Replay(stored) => return Ok(replay(stored)),
            Claim::Fresh(tx) => tx,
        };
    if store::insert(&mut tx, SHARED_SCOPE, &key, &fingerprint, &note).await? {
        idempotency::commit(tx).await?;
        tracing::info!(note_id = %note.id, "note saved");
        return Ok(note_response(&answer, false));
    }

    // The idempotency row had expired while the note (which carries its key) stayed:
    // a late retry gets the existing note, never a second one.
    let Some((existing, created_by)) = store::find_by_key(&mut tx, SHARED_SCOPE, &key).await?
    else {
        return Err(ApiError::Internal(anyhow::anyhow!(
            "the note insert conflicted but no note has the key"
        )));
    };
    if created_by != fingerprint {
        return Err(ApiError::IdempotencyKeyReused);
    }
    let late = stored_answer(StatusCode::OK, &existing)?;
    idempotency::replace_answer(&mut tx, SHARED_SCOPE, &key, &late).await?;
    idempotency::commit(tx).await?;
    tracing::info!(note_id = %existing.id, "late retry after expiry: answered with the existing note");
    Ok(note_response(&late, true))
}

fn replay(stored: StoredResponse) -> Response {
    tracing::info!(note_id = %stored.note_id, status = stored.status, "replayed a stored answer");
    note_response(&stored, true)
}

/// The body must be declared as JSON (`application/json`, with or without parameters).
fn require_json(headers: &HeaderMap) -> Result<(), ApiError> {
    let declared = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        });
    match declared.as_deref() {
        Some("application/json") => Ok(()),
        Some(other) => Err(ApiError::UnsupportedMediaType(format!(
            "the body must be application/json, not {other:?}"
        ))),
        None => Err(ApiError::UnsupportedMediaType(
            "the Content-Type header is missing; send application/json".into(),
        )),
    }
}

fn stored_answer(status: StatusCode, note: &app::api::Note) -> Result<StoredResponse, ApiError> {
    Ok(StoredResponse {
        status: status.as_u16(),
        body: serde_json::to_vec(note).map_err(|e| ApiError::Internal(e.into()))?,
        note_id: note.id.clone(),
    })
}

/// The answer for a note: the stored status and bytes, `Location`, and on a replay
/// `Idempotent-Replayed: true`.
fn note_response(stored: &StoredResponse, replayed: bool) -> Response {
    let status = StatusCode::from_u16(stored.status).unwrap_or(StatusCode::OK);
    let mut response = (status, stored.body.clone()).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if let Ok(location) = HeaderValue::from_str(&format!("{NOTES_PATH}/{}", stored.note_id)) {
        headers.insert(header::LOCATION, location);
    }
    if replayed {
        headers.insert(IDEMPOTENT_REPLAYED_HEADER, HeaderValue::from_static("true"));
    }
    response
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
    let page = store::list(&state.pool, limit, cursor.as_ref()).await?;
    Ok(axum::Json(page).into_response())
}

/// `GET /api/notes/{id}`.
async fn get_note(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    match store::get(&state.pool, &id).await? {
        Some(note) => Ok(axum::Json(note).into_response()),
        None => Err(ApiError::NotFound(format!("no note has the id {id:?}"))),
    }
}

async fn method_not_allowed() -> ApiError {
    ApiError::MethodNotAllowed("this route answers GET (and POST on /api/notes)".into())
}
