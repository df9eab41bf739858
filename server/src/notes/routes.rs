//! The notes API over HTTP: parse and check the request, hand the write to the
//! idempotency pipeline once, answer.
//!
//! - `POST /api/notes` create · `GET /api/notes` list (not in the trash)
//! - `GET /api/notes/{id}` · `PATCH` edit · `DELETE` to the trash (`?permanent=true`: for good)
//! - `POST /api/notes/{id}/restore` · `GET /api/trash`
//! - `GET /api/notes/{id}/revisions` and `…/revisions/{version}`: its history (`history`)

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;

use app::api::{NOTES_PATH, NewNote, NoteEdit, tag_name};

use super::answers::{self, etag};
use super::changes::ValidNoteEdit;
use super::changes::{IfMatch, Lifecycle, ValidLifecycle};
use super::create::CreateNote;
use super::edit::EditNote;
use super::history;
use super::lifecycle::ChangeLifecycle;
use super::new_note::ValidNewNote;
use super::patch::PatchNote;
use super::rendered;
use crate::accounts::session::SignedIn;
use crate::error::ApiError;
use crate::http::body::parse_json;
use crate::http::paging::parse_limit;
use crate::http::routing::allow;
use crate::idempotency::{Payload, write_request};
use crate::records::cursor::Cursor;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            NOTES_PATH,
            allow(get(list_notes).post(create_note), "GET, POST"),
        )
        .route(
            "/api/notes/{id}",
            allow(
                get(get_note).patch(edit_note).delete(delete_note),
                "GET, PATCH, DELETE",
            ),
        )
        .route("/api/notes/{id}/restore", allow(post(restore_note), "POST"))
        .route(
            "/api/notes/{id}/revisions",
            allow(get(history::list_revisions), "GET"),
        )
        .route(
            "/api/notes/{id}/revisions/{version}",
            allow(get(history::get_revision), "GET"),
        )
        .route("/api/trash", allow(get(list_trash), "GET"))
}

/// `POST /api/notes`.
#[tracing::instrument(name = "create_note", skip_all, fields(key = tracing::field::Empty))]
async fn create_note(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
    headers: HeaderMap,
    body: Body,
) -> Response {
    write_request(
        &state,
        &viewer.user_id,
        &headers,
        body,
        Payload::Json,
        |bytes| {
            let request: NewNote = parse_json(bytes, "a note")?;
            let note = ValidNewNote::parse(request)?;
            // Its answer's html, rendered now rather than inside the transaction.
            rendered::warm(&note.body);
            Ok(CreateNote::from_api(note))
        },
        answers::created,
    )
    .await
}

/// `PATCH /api/notes/{id}`.
#[tracing::instrument(name = "edit_note", skip_all, fields(key = tracing::field::Empty, %id))]
async fn edit_note(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let if_match = IfMatch::from_headers(&headers);
    write_request(
        &state,
        &viewer.user_id,
        &headers,
        body,
        Payload::Json,
        |bytes| {
            let request: NoteEdit = parse_json(bytes, "an edit")?;
            let patch = PatchNote::parse(&id, request, if_match)?;
            // An edit applied as sent is answered with this body's html: rendered now,
            // once the body passed its checks, rather than inside the transaction.
            if let PatchNote::Edit(EditNote(ValidNoteEdit {
                body: Some(body), ..
            })) = &patch
            {
                rendered::warm(body);
            }
            Ok(patch)
        },
        answers::patched,
    )
    .await
}

#[derive(Deserialize)]
struct DeleteParams {
    permanent: Option<String>,
}

/// `DELETE /api/notes/{id}` (to the trash) and `?permanent=true` (for good).
#[tracing::instrument(name = "delete_note", skip_all, fields(key = tracing::field::Empty, %id))]
async fn delete_note(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
    Path(id): Path<String>,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let change = Query::<DeleteParams>::try_from_uri(&uri)
        .map_err(|e| ApiError::InvalidQuery(e.body_text()))
        .and_then(|params| match params.0.permanent.as_deref() {
            None | Some("false") => Ok(Lifecycle::Trash),
            Some("true") => Ok(Lifecycle::Purge),
            Some(other) => Err(ApiError::InvalidQuery(format!(
                "permanent must be true or false, got {other:?}"
            ))),
        });
    let change = match change {
        Ok(change) => change,
        Err(error) => return error.into_response(),
    };
    lifecycle(&state, &viewer.user_id, id, &headers, body, change).await
}

/// `POST /api/notes/{id}/restore`.
#[tracing::instrument(name = "restore_note", skip_all, fields(key = tracing::field::Empty, %id))]
async fn restore_note(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    lifecycle(
        &state,
        &viewer.user_id,
        id,
        &headers,
        body,
        Lifecycle::Restore,
    )
    .await
}

async fn lifecycle(
    state: &AppState,
    scope: &str,
    id: String,
    headers: &HeaderMap,
    body: Body,
    change: Lifecycle,
) -> Response {
    let if_match = IfMatch::from_headers(headers);
    let parse = |_: &Bytes| {
        Ok(ChangeLifecycle(ValidLifecycle {
            id,
            change,
            if_match,
        }))
    };
    write_request(
        state,
        scope,
        headers,
        body,
        Payload::None,
        parse,
        answers::moved,
    )
    .await
}

#[derive(Deserialize)]
struct ListParams {
    limit: Option<String>,
    cursor: Option<String>,
    tag: Option<String>,
}

/// Reads `limit` (1–200, default 50) and `cursor`.
fn page_params(uri: &Uri) -> Result<(u32, Option<Cursor>), ApiError> {
    let params = list_params(uri)?;
    let limit = parse_limit(params.limit.as_deref())?;
    let cursor = params.cursor.as_deref().map(Cursor::decode).transpose()?;
    Ok((limit, cursor))
}

fn list_params(uri: &Uri) -> Result<ListParams, ApiError> {
    Ok(Query::<ListParams>::try_from_uri(uri)
        .map_err(|e| ApiError::InvalidQuery(e.body_text()))?
        .0)
}

/// `GET /api/notes?limit=&cursor=&tag=`: notes not in the trash, pinned first, newest
/// first; with `tag`, those tagged with it or a tag under it.
async fn list_notes(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
    uri: Uri,
) -> Result<Response, ApiError> {
    let (limit, cursor) = page_params(&uri)?;
    let tag = list_params(&uri)?
        .tag
        .map(|raw| tag_name(&raw).map_err(|e| ApiError::InvalidQuery(format!("tag {raw:?}: {e}"))))
        .transpose()?;
    let page = state
        .store
        .notes()
        .list_notes(&viewer.user_id, limit, cursor.as_ref(), tag.as_deref())
        .await?;
    Ok(axum::Json(page).into_response())
}

/// `GET /api/trash?limit=&cursor=`: notes in the trash, latest moved first.
async fn list_trash(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
    uri: Uri,
) -> Result<Response, ApiError> {
    let (limit, cursor) = page_params(&uri)?;
    let page = state
        .store
        .notes()
        .list_trash(&viewer.user_id, limit, cursor.as_ref())
        .await?;
    Ok(axum::Json(page).into_response())
}

/// `GET /api/notes/{id}`: the note with its body rendered, its version as its `ETag`.
async fn get_note(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    match state.store.notes().get_note(&viewer.user_id, &id).await? {
        Some(note) => {
            let tag = etag(&note);
            let note = rendered::with_html_off_the_runtime(note).await;
            Ok(([(header::ETAG, tag)], axum::Json(note)).into_response())
        }
        None => Err(ApiError::NotFound(format!("no note has the id {id:?}"))),
    }
}
