//! `GET /healthz`: 200 while the database answers a query, 503 when it does not, with the
//! backend's name (`sqlite` or `postgres`). On SQLite it reads through the read pool, so
//! a queue of writers never makes the server look dead. On SQLite it also counts the
//! write transactions committed since the start (`write_commits`: writes that arrived
//! together share one).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::state::AppState;

pub async fn healthz(State(state): State<AppState>) -> Response {
    match state.store.ping().await {
        Ok(()) => {
            let mut body = serde_json::json!({ "status": "ok", "database": state.store.backend() });
            if let Some(commits) = state.store.write_commits() {
                body["write_commits"] = commits.into();
            }
            Json(body).into_response()
        }
        Err(error) => {
            tracing::error!(%error, "health check: the database did not answer");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(serde_json::json!({
                    "status": "database unavailable",
                    "database": state.store.backend(),
                })),
            )
                .into_response()
        }
    }
}
