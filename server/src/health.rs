//! `GET /healthz`: 200 while the database answers a query, 503 when it does not.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::state::AppState;

pub async fn healthz(State(state): State<AppState>) -> Response {
    match sqlx::query_scalar::<_, i64>("SELECT 1")
        .fetch_one(&state.pool)
        .await
    {
        Ok(_) => Json(serde_json::json!({ "status": "ok" })).into_response(),
        Err(error) => {
            tracing::error!(?error, "health check: the database did not answer");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(serde_json::json!({ "status": "database unavailable" })),
            )
                .into_response()
        }
    }
}
