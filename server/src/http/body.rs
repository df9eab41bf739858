//! Reading a write's request body: bounded in size and in time, and told apart by cause —
//! too large (413), too slow (408), or broken on the way (400).

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, header};
use serde::de::DeserializeOwned;

use app::api::MAX_REQUEST_BYTES;

use crate::error::ApiError;

/// Reads the whole body: at most [`MAX_REQUEST_BYTES`], within `timeout` in all.
pub async fn read_limited(
    headers: &HeaderMap,
    body: Body,
    timeout: Duration,
) -> Result<Bytes, ApiError> {
    read_at_most(headers, body, timeout, MAX_REQUEST_BYTES).await
}

/// Reads the whole body: at most `limit` bytes, within `timeout` in all.
pub async fn read_at_most(
    headers: &HeaderMap,
    body: Body,
    timeout: Duration,
    limit: usize,
) -> Result<Bytes, ApiError> {
    let too_large = || ApiError::PayloadTooLarge { limit };
    // A declared length over the limit is refused before waiting for a byte of it.
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|length| length > limit as u64) {
        return Err(too_large());
    }
    match tokio::time::timeout(timeout, axum::body::to_bytes(body, limit)).await {
        Err(_) => Err(ApiError::RequestTimeout),
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(error)) if is_length_limit(&error) => Err(too_large()),
        Ok(Err(error)) => Err(ApiError::InvalidBody(format!(
            "the request body could not be read: {error}"
        ))),
    }
}

fn is_length_limit(error: &axum::Error) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(current) = cause {
        if current.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        cause = current.source();
    }
    false
}

/// The media type a request declares for its body, lower case, without parameters.
fn media_type(headers: &HeaderMap) -> Option<String> {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
}

/// The body must be declared as JSON (`application/json`, with or without parameters).
pub fn require_json(headers: &HeaderMap) -> Result<(), ApiError> {
    let declared = media_type(headers);
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

/// The body must be declared as a zip archive: `application/zip`, or
/// `application/x-zip-compressed` (what some systems call a `.zip` file).
pub fn require_zip(headers: &HeaderMap) -> Result<(), ApiError> {
    let declared = media_type(headers);
    match declared.as_deref() {
        Some("application/zip" | "application/x-zip-compressed") => Ok(()),
        Some(other) => Err(ApiError::UnsupportedMediaType(format!(
            "the body must be a zip archive (application/zip), not {other:?}"
        ))),
        None => Err(ApiError::UnsupportedMediaType(
            "the Content-Type header is missing; send application/zip".into(),
        )),
    }
}

/// Parses a JSON body into `T`; `what` names it in the error ("a note").
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8], what: &str) -> Result<T, ApiError> {
    serde_json::from_slice(bytes)
        .map_err(|e| ApiError::InvalidJson(format!("the body is not {what}: {e}")))
}
