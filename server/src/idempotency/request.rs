//! A write request, checked in the protocol's order — body size, key, media type, then the
//! route's own parsing — and handed to [`execute`] once: the one way every write route
//! (notes, tags, the page's forms aside) reaches the pipeline.

use axum::body::{Body, Bytes};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};

use super::pipeline::{Operation, execute};
use crate::error::ApiError;
use crate::http::body::{read_limited, require_json};
use crate::records::{IdempotencyKey, StoredAnswer};
use crate::state::AppState;

/// What a write's body must be.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Payload {
    /// `application/json`, parsed by the route.
    Json,
    /// No body is read for it (trash, restore, delete): any body is ignored.
    None,
}

/// Runs every check of a write in the protocol's order — body size, key, media type,
/// then the route's own parsing — and hands the operation to the pipeline once, in the
/// signed-in person's scope (the extractor answered 401 before any of this otherwise).
pub async fn write_request<O: Operation + Send + 'static>(
    state: &AppState,
    scope: &str,
    headers: &HeaderMap,
    body: Body,
    payload: Payload,
    parse: impl FnOnce(&Bytes) -> Result<O, ApiError>,
    answer: fn(&O::Done) -> Result<StoredAnswer, ApiError>,
) -> Response {
    prepared_write_request(
        state,
        scope,
        headers,
        body,
        payload,
        parse,
        async |o| Ok(o),
        answer,
    )
    .await
}

/// [`write_request`], with a step between the parsing and the pipeline: `prepare` reads
/// and works out what the write needs, outside its transaction, so that the write holds
/// the database (on SQLite, every write of everyone) only for the writing (a tag rename
/// parses every note it rewrites here). What it prepared is checked again inside.
#[allow(clippy::too_many_arguments)]
pub async fn prepared_write_request<P, O: Operation + Send + 'static>(
    state: &AppState,
    scope: &str,
    headers: &HeaderMap,
    body: Body,
    payload: Payload,
    parse: impl FnOnce(&Bytes) -> Result<P, ApiError>,
    prepare: impl AsyncFnOnce(P) -> Result<O, ApiError>,
    answer: fn(&O::Done) -> Result<StoredAnswer, ApiError>,
) -> Response {
    let mut key = None;
    let result = async {
        let bytes = read_limited(headers, body, state.config.body_timeout).await?;
        let found = IdempotencyKey::from_headers(headers)?;
        tracing::Span::current().record("key", found.as_str());
        key = Some(found.clone());
        if payload == Payload::Json {
            require_json(headers)?;
        }
        let parsed = parse(&bytes)?;
        let operation = prepare(parsed).await?;
        let answer = execute(state.pipeline(), scope, &found, operation, answer).await?;
        if answer.replayed {
            tracing::info!(status = answer.stored.status, "replayed a stored answer");
        }
        Ok::<_, ApiError>(answer.into_response())
    }
    .await;
    result.unwrap_or_else(|error: ApiError| {
        error.log(key.as_ref().map(IdempotencyKey::as_str));
        error.into_response()
    })
}
