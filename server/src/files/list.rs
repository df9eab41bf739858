//! `GET /api/files`: the person's files, newest first, with the bytes they take and
//! their quota (the account page shows one against the other).

use axum::Json;
use axum::extract::State;

use app::api::FileList;

use crate::accounts::session::SignedIn;
use crate::error::ApiError;
use crate::state::AppState;

pub async fn list_files(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
) -> Result<Json<FileList>, ApiError> {
    let (files, used_bytes) = state
        .store
        .files()
        .files_of(&viewer.user_id)
        .await
        .inspect_err(|error| tracing::warn!(%error, "could not list a person's files"))?;
    Ok(Json(FileList {
        files: files.into_iter().map(Into::into).collect(),
        used_bytes,
        quota_bytes: state.config.file_quota_bytes,
    }))
}
