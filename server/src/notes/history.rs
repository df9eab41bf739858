//! A note's history over HTTP, a page at a time (issue #60: one answer with every
//! version's body grew without bound):
//!
//! - `GET /api/notes/{id}/revisions?limit=&cursor=`: versions without their bodies, oldest
//!   first; `next` is the last version listed, to pass as `cursor` for the page after.
//! - `GET /api/notes/{id}/revisions/{version}`: one version, with its body.

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::Uri;
use serde::Deserialize;

use app::api::{Revision, RevisionsPage};

use crate::accounts::session::SignedIn;
use crate::error::ApiError;
use crate::http::paging::parse_limit;
use crate::state::AppState;
use crate::storage::history::Versions;

/// A version as a path or a cursor names it: a whole number from 1. Anything else names
/// no version (`None`).
pub fn parse_version(text: &str) -> Option<i64> {
    text.parse::<i64>().ok().filter(|version| *version >= 1)
}

#[derive(Deserialize)]
struct HistoryParams {
    limit: Option<String>,
    cursor: Option<String>,
}

/// `GET /api/notes/{id}/revisions?limit=&cursor=`: a page of versions, oldest first.
pub async fn list_revisions(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
    Path(id): Path<String>,
    uri: Uri,
) -> Result<Json<RevisionsPage>, ApiError> {
    let params = Query::<HistoryParams>::try_from_uri(&uri)
        .map_err(|e| ApiError::InvalidQuery(e.body_text()))?
        .0;
    let limit = parse_limit(params.limit.as_deref())?;
    let after = match params.cursor.as_deref() {
        None => 0,
        Some(text) => parse_version(text).ok_or_else(|| {
            ApiError::InvalidQuery(format!(
                "cursor must be a version, a whole number from 1, got {text:?}"
            ))
        })?,
    };
    match state
        .store
        .notes()
        .history(&viewer.user_id, &id, Versions::After(after), limit)
        .await?
    {
        Some(page) => Ok(Json(page)),
        None => Err(ApiError::NotFound(format!("no note has the id {id:?}"))),
    }
}

/// `GET /api/notes/{id}/revisions/{version}`: one version with its body. The version is
/// read from the path as text: a typed extractor would answer a non-number with a plain
/// 400, where a path that names nothing is a 404 problem like any other.
pub async fn get_revision(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
    Path((id, version)): Path<(String, String)>,
) -> Result<Json<Revision>, ApiError> {
    let missing = || ApiError::NotFound(format!("note {id:?} has no version {version:?}"));
    let Some(number) = parse_version(&version) else {
        return Err(missing());
    };
    match state
        .store
        .notes()
        .revision(&viewer.user_id, &id, number)
        .await?
    {
        Some(revision) => Ok(Json(revision)),
        None => Err(missing()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_is_a_whole_number_from_1() {
        assert_eq!(parse_version("1"), Some(1));
        assert_eq!(parse_version("52"), Some(52));
        for text in ["0", "-1", "1.5", "two", "", " 3", "99999999999999999999"] {
            assert_eq!(parse_version(text), None, "{text:?}");
        }
    }
}
