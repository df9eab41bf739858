//! `GET /api/search?q=&limit=&cursor=`: best match first, notes in the trash left out.
//! Any input is answered with 200 (possibly no results), or 422 when there is no word to
//! look for — never a 500. With `ONCENOTE_SERVER_TIMING=on`, each answer says the
//! server's time on it (`Server-Timing: search;dur=…, total;dur=…`).

use axum::Router;
use axum::extract::{Query, State};
use axum::http::Uri;
use axum::middleware::from_fn_with_state;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Deserialize;

use crate::accounts::session::SignedIn;
use crate::error::ApiError;
use crate::http::paging::parse_limit;
use crate::http::routing::allow;
use crate::http::server_timing;
use crate::state::AppState;

/// The search's route; `timed`: its answers say the server's time on them
/// (`ONCENOTE_SERVER_TIMING`).
pub fn router(timed: bool) -> Router<AppState> {
    let router = Router::new().route("/api/search", allow(get(search), "GET"));
    if timed {
        router.route_layer(from_fn_with_state(SEARCH_METRIC, server_timing::stamp))
    } else {
        router
    }
}

/// The name of the search's own part in its `Server-Timing`.
const SEARCH_METRIC: &str = "search";

#[derive(Deserialize)]
struct SearchParams {
    q: Option<String>,
    limit: Option<String>,
    cursor: Option<String>,
}

async fn search(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
    uri: Uri,
) -> Result<Response, ApiError> {
    let params = Query::<SearchParams>::try_from_uri(&uri)
        .map_err(|e| ApiError::InvalidQuery(e.body_text()))?
        .0;
    let limit = parse_limit(params.limit.as_deref())?;
    let page = super::find(
        &state.store,
        &viewer.user_id,
        params.q.as_deref().unwrap_or(""),
        limit,
        params.cursor.as_deref(),
    )
    .await?;
    Ok(axum::Json(page).into_response())
}
