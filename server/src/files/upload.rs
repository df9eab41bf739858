//! `PUT /api/files/{sha256}`: an upload, stored exactly once.
//!
//! The name is the SHA-256 of the bytes, so it is the upload's own idempotency key: no
//! `Idempotency-Key` header is asked for, and a repeat — a retry after a lost answer, the
//! same file dropped twice, two tabs at once — stores nothing new. In order:
//!
//! 1. the signed-in person (401; 409 when the page's `X-Oncenote-User` names someone else)
//!    — the cross-site check ran before any handler;
//! 2. the name: not 64 lower-case hex digits → 404 `not-found` (no file can have it, as no
//!    note can have an id that does not exist; a 422 would suggest the body was at fault);
//! 3. a declared `Content-Length` over `ONCENOTE_FILE_MAX_BYTES` → 413, nothing read;
//! 4. the person has the file already → 200 with `Idempotent-Replayed: true`, the body
//!    never read (so a client that sent `Expect: 100-continue` never sends it);
//!    a declared `Content-Length` past the room left in the quota → 413 `quota-exceeded`,
//!    the body never read either;
//! 5. a place among the uploads running (`limits`): 429 / 503 with `Retry-After`;
//! 6. the body, streamed to a spool file while it is hashed and counted: past the limit
//!    → 413 at once (also without `Content-Length`); no byte for `ONCENOTE_BODY_TIMEOUT_SECS`,
//!    or the whole upload longer than [`UPLOAD_TOTAL_TIME`] → 408; a full disk → 507;
//! 7. bytes that do not hash to the name → 422 `hash-mismatch`;
//! 8. one transaction (`store.files().insert_file`): 201 `{"file"}` the first time, 200
//!    replayed when another upload of the same file finished first, 413 `quota-exceeded`.
//!
//! The spool file and the upload's place are given back on every path, also when the
//! client goes away mid-body (the request's future is dropped): both are guards.

use std::time::Duration;

use axum::Json;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use sha2::{Digest, Sha256};
use tokio::time::Instant;

use app::api::{FileAnswer, IDEMPOTENT_REPLAYED_HEADER, file_href, is_file_name, quota_charge};

use super::sniff::declared_type;
use super::spool::SpoolFile;
use crate::accounts::session::SignedIn;
use crate::error::ApiError;
use crate::state::AppState;
use crate::storage::files::{FileInsert, StoredFile};
use crate::timestamp;

/// The longest a whole upload may take, however steadily its bytes come: a phone on a bad
/// line sends 25 MiB in minutes, not hours. The wait for each next byte is bounded by the
/// body timeout.
pub const UPLOAD_TOTAL_TIME: Duration = Duration::from_secs(3600);

/// `PUT /api/files/{sha256}` with the raw bytes.
#[tracing::instrument(name = "upload_file", skip_all, fields(file = %name))]
pub async fn put_file(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    match upload(&state, &viewer.user_id, &name, &headers, body).await {
        Ok(response) => response,
        Err(error) => {
            error.log(None);
            error.into_response()
        }
    }
}

async fn upload(
    state: &AppState,
    scope: &str,
    name: &str,
    headers: &HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    if !is_file_name(name) {
        return Err(ApiError::NotFound(
            "a file's name is the SHA-256 of its bytes: 64 lower-case hex digits".into(),
        ));
    }
    let max = state.config.file_max_bytes;
    if declared_length(headers).is_some_and(|length| length > max) {
        return Err(too_large(max));
    }
    let now = timestamp::format(timestamp::now());
    if let Some(file) = state.store.files().touch_file(scope, name, &now).await? {
        tracing::info!("the file is stored already; the body was not read");
        return Ok(answer(file, Outcome::Replayed));
    }
    let quota = state.config.file_quota_bytes;
    if let Some(length) = declared_length(headers) {
        // A cheap read, no lock: a file that cannot fit is refused before its body is
        // read (the insert's transaction checks again, for uploads racing this one). It
        // costs what the insert would charge: its size, at least 4 KiB.
        let used = state.store.files().used_bytes(scope).await?;
        if used.saturating_add(quota_charge(length)) > quota {
            return Err(ApiError::QuotaExceeded {
                size: length,
                used,
                quota,
            });
        }
    }
    let _slot = state.uploads.limits.begin(scope)?;
    let mut spool = state.uploads.spool.create().await.map_err(spool_failure)?;
    let received = receive(
        body,
        &mut spool,
        max,
        state.config.body_timeout,
        Pace::of(&state.config),
    )
    .await?;
    if received.sha256 != name {
        return Err(ApiError::HashMismatch {
            actual: received.sha256,
        });
    }
    let content_type = declared_type(
        headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok()),
    );
    let now = timestamp::format(timestamp::now());
    let inserted = state
        .store
        .files()
        .insert_file(
            scope,
            name,
            received.size,
            &content_type,
            spool.path(),
            quota,
            &now,
        )
        .await?;
    match inserted {
        FileInsert::Stored(file) => {
            tracing::info!(size = file.size, "stored a file");
            Ok(answer(file, Outcome::Created))
        }
        FileInsert::AlreadyThere(file) => Ok(answer(file, Outcome::Replayed)),
        FileInsert::OverQuota { used, quota } => Err(ApiError::QuotaExceeded {
            size: received.size,
            used,
            quota,
        }),
    }
    // The spool file is removed here, as `spool` goes out of scope (and on every early
    // return above).
}

/// The slowest an upload's bytes may come on average, once it has had time to start.
/// The idle timeout bounds the wait for each next byte, [`UPLOAD_TOTAL_TIME`] the whole;
/// between them a trickle (a byte every 29 s) could hold an upload's place for an hour.
/// Checked as each piece arrives: a client below the rate hears 408 with its next piece
/// (or the idle timeout, if none comes).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pace {
    /// Bytes per second on average; 0: no minimum.
    pub(crate) min_bytes_per_sec: u64,
    /// How long an upload may start slowly before its average is held to the minimum.
    pub(crate) after: Duration,
}

impl Pace {
    /// The pace the configuration sets.
    pub(crate) fn of(config: &crate::config::Config) -> Self {
        Self {
            min_bytes_per_sec: config.upload_min_rate,
            after: config.upload_rate_after,
        }
    }

    /// Whether `size` bytes in `elapsed` is below the minimum average (never before
    /// `after`).
    fn too_slow(self, size: u64, elapsed: Duration) -> bool {
        self.min_bytes_per_sec > 0
            && elapsed >= self.after
            && (size as f64) < self.min_bytes_per_sec as f64 * elapsed.as_secs_f64()
    }
}

/// What the body was.
pub(crate) struct Received {
    pub(crate) sha256: String,
    pub(crate) size: u64,
}

/// Streams `body` into `spool`, hashing and counting it: at most `max` bytes, at most
/// `idle` between two frames, [`UPLOAD_TOTAL_TIME`] in all.
pub(crate) async fn receive(
    body: Body,
    spool: &mut SpoolFile,
    max: u64,
    idle: Duration,
    pace: Pace,
) -> Result<Received, ApiError> {
    let started = Instant::now();
    let deadline = started + UPLOAD_TOTAL_TIME;
    let mut stream = body.into_data_stream();
    let mut hasher = Sha256::new();
    let mut size: u64 = 0;
    loop {
        let wait = idle.min(deadline.saturating_duration_since(Instant::now()));
        let frame = match tokio::time::timeout(wait, stream.next()).await {
            Err(_) => return Err(ApiError::RequestTimeout),
            Ok(None) => break,
            Ok(Some(Err(error))) => {
                return Err(ApiError::InvalidBody(format!(
                    "the upload could not be read to its end: {error}"
                )));
            }
            Ok(Some(Ok(bytes))) => bytes,
        };
        size += frame.len() as u64;
        if size > max {
            return Err(too_large(max));
        }
        if pace.too_slow(size, started.elapsed()) {
            return Err(ApiError::RequestTimeout);
        }
        hasher.update(&frame);
        spool.write(&frame).await.map_err(spool_failure)?;
    }
    spool.finish().await.map_err(spool_failure)?;
    Ok(Received {
        sha256: hex::encode(hasher.finalize()),
        size,
    })
}

fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
}

fn too_large(max: u64) -> ApiError {
    ApiError::PayloadTooLarge {
        limit: usize::try_from(max).unwrap_or(usize::MAX),
    }
}

/// A spool file that could not be written: a full disk is 507 `storage-full` (the client
/// retries later, as for a full database), anything else a failure of the server.
pub(crate) fn spool_failure(error: std::io::Error) -> ApiError {
    if error.kind() == std::io::ErrorKind::StorageFull {
        ApiError::StorageFull
    } else {
        ApiError::Internal(anyhow::Error::new(error).context("writing an upload's spool file"))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Created,
    Replayed,
}

/// 201 with the file and where it is served, or 200 replayed.
fn answer(file: StoredFile, outcome: Outcome) -> Response {
    let href = file_href(&file.sha256);
    let status = match outcome {
        Outcome::Created => StatusCode::CREATED,
        Outcome::Replayed => StatusCode::OK,
    };
    let mut response = (status, Json(FileAnswer { file: file.into() })).into_response();
    let headers = response.headers_mut();
    if let Ok(location) = HeaderValue::from_str(&href) {
        headers.insert(header::LOCATION, location);
    }
    if outcome == Outcome::Replayed {
        headers.insert(IDEMPOTENT_REPLAYED_HEADER, HeaderValue::from_static("true"));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_upload_is_held_to_its_pace_only_after_its_start() {
        let pace = Pace {
            min_bytes_per_sec: 8 * 1024,
            after: Duration::from_secs(60),
        };
        let secs = Duration::from_secs;
        // A trickle: a byte every 29 s.
        assert!(!pace.too_slow(2, secs(58)), "still starting");
        assert!(pace.too_slow(3, secs(87)));
        // A slow start that catches up is fine.
        assert!(!pace.too_slow(600 * 1024, secs(61)));
        assert!(pace.too_slow(400 * 1024, secs(61)));
        let off = Pace {
            min_bytes_per_sec: 0,
            ..pace
        };
        assert!(!off.too_slow(1, secs(3000)));
    }

    #[test]
    fn a_spool_file_is_stale_only_well_after_the_longest_upload_could_run() {
        assert!(super::super::spool::STALE_AFTER >= 2 * UPLOAD_TOTAL_TIME);
    }
}
