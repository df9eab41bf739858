//! `GET /api/files?limit=&cursor=`: the person's files a page at a time, newest first,
//! with what they all cost of the quota, the quota and how many there are (the account
//! page shows one against the other). Paged since issue #60: one answer with every file
//! grew with them (0.5 MB for 3,000 tiny files).

use axum::Json;
use axum::extract::{Query, State};
use axum::http::Uri;
use serde::Deserialize;

use app::api::FileList;

use crate::accounts::session::SignedIn;
use crate::error::ApiError;
use crate::http::paging::parse_limit;
use crate::records::file_cursor::FileCursor;
use crate::state::AppState;

#[derive(Deserialize)]
struct ListParams {
    limit: Option<String>,
    cursor: Option<String>,
}

pub async fn list_files(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
    uri: Uri,
) -> Result<Json<FileList>, ApiError> {
    let params = Query::<ListParams>::try_from_uri(&uri)
        .map_err(|e| ApiError::InvalidQuery(e.body_text()))?
        .0;
    let limit = parse_limit(params.limit.as_deref())?;
    let after = params
        .cursor
        .as_deref()
        .map(FileCursor::decode)
        .transpose()?;
    let page = state
        .store
        .files()
        .file_page(&viewer.user_id, limit, after.as_ref())
        .await
        .inspect_err(|error| tracing::warn!(%error, "could not list a person's files"))?;
    Ok(Json(FileList {
        files: page.files.into_iter().map(Into::into).collect(),
        next: page.next.map(|cursor| cursor.encode()),
        used_bytes: page.used_bytes,
        quota_bytes: state.config.file_quota_bytes,
        file_count: page.file_count,
    }))
}
