//! `GET /healthz`: 200 while the database answers a query and writes are not being
//! refused, 503 otherwise, with the backend's name (`sqlite` or `postgres`).
//!
//! - A database that does not answer: `{"status":"database unavailable"}`. On SQLite the
//!   query goes through the read pool, so a queue of writers never makes the server look
//!   dead.
//! - A server whose reads work but whose writes are refused — a full disk (507), a
//!   database that cannot be reached for writing — says so too: `{"status":"storage-full"}`
//!   (or `"database unavailable"`), with `since` (the first refusal) and `last` (the latest),
//!   until a write succeeds again or for [`REMEMBERED_FOR`] after the last refusal. The
//!   bound keeps a server whose room came back while no client wrote (a load balancer
//!   that took it out on this very 503) from looking broken for ever.
//! - On SQLite it also counts the write transactions committed since the start
//!   (`write_commits`: writes that arrived together share one).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::error::{ApiError, DbFailure};
use crate::storage::Store;
use crate::timestamp;

/// How long a refused write is reported after the last one, unless a write succeeds.
pub const REMEMBERED_FOR: Duration = Duration::from_secs(60);

/// What the latest writes said about the database.
#[derive(Default)]
pub struct WriteHealth {
    refusing: Mutex<Option<Refusing>>,
}

/// Writes are being refused for a reason that is the server's, not the request's.
#[derive(Clone, Debug)]
struct Refusing {
    class: DbFailure,
    /// The first refusal of this run, as a timestamp.
    since: String,
    /// The latest refusal.
    last: String,
    last_at: Instant,
}

impl WriteHealth {
    /// Notes the result of a write: a success clears the state, a full disk or an
    /// unreachable database sets it; anything else (a refused request, a busy database)
    /// says nothing about whether the server can write.
    pub fn record<T>(&self, result: &Result<T, ApiError>) {
        let class = match result {
            Ok(_) => None,
            Err(error) => match error.db_failure() {
                Some(class @ (DbFailure::StorageFull | DbFailure::Unavailable)) => Some(class),
                _ => return,
            },
        };
        let mut refusing = self.refusing.lock().unwrap_or_else(|e| e.into_inner());
        *refusing = class.map(|class| {
            let now = timestamp::format(timestamp::now());
            let since = match refusing.as_ref() {
                Some(earlier) if earlier.class == class => earlier.since.clone(),
                _ => now.clone(),
            };
            Refusing {
                class,
                since,
                last: now,
                last_at: Instant::now(),
            }
        });
    }

    /// Whether writes are being refused for a reason of the server's.
    #[cfg(test)]
    pub fn is_refusing(&self) -> bool {
        self.refusing().is_some()
    }

    /// Why writes are refused now, if they are.
    fn refusing(&self) -> Option<Refusing> {
        let refusing = self.refusing.lock().unwrap_or_else(|e| e.into_inner());
        refusing
            .as_ref()
            .filter(|r| r.last_at.elapsed() < REMEMBERED_FOR)
            .cloned()
    }
}

/// `GET /healthz`.
pub async fn healthz(
    State(store): State<Store>,
    State(write_health): State<Arc<WriteHealth>>,
) -> Response {
    let database = store.backend();
    if let Err(error) = store.ping().await {
        tracing::error!(%error, "health check: the database did not answer");
        return unhealthy(serde_json::json!({
            "status": "database unavailable",
            "database": database,
        }));
    }
    if let Some(refusing) = write_health.refusing() {
        let status = match refusing.class {
            DbFailure::StorageFull => "storage-full",
            _ => "database unavailable",
        };
        return unhealthy(serde_json::json!({
            "status": status,
            "database": database,
            "since": refusing.since,
            "last": refusing.last,
        }));
    }
    let mut body = serde_json::json!({ "status": "ok", "database": database });
    if let Some(commits) = store.write_commits() {
        body["write_commits"] = commits.into();
    }
    Json(body).into_response()
}

fn unhealthy(body: serde_json::Value) -> Response {
    (StatusCode::SERVICE_UNAVAILABLE, Json(body)).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_disk_is_reported_until_a_write_succeeds_and_a_busy_database_changes_nothing() {
        let health = WriteHealth::default();
        assert!(health.refusing().is_none());
        health.record::<()>(&Err(ApiError::StorageFull));
        let first = health.refusing().expect("refusing");
        assert_eq!(first.class, DbFailure::StorageFull);
        // A busy database or a refused request says nothing about the disk.
        health.record::<()>(&Err(ApiError::Busy));
        health.record::<()>(&Err(ApiError::InvalidJson("x".into())));
        health.record::<()>(&Err(ApiError::StorageFull));
        let again = health.refusing().expect("still refusing");
        assert_eq!(again.since, first.since, "since is the first refusal");
        health.record(&Ok(()));
        assert!(health.refusing().is_none());
    }
}
