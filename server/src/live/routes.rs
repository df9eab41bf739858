//! The change feed over HTTP (PROTOCOL.md, "Changes and live updates"):
//!
//! - `GET /api/changes?since=&limit=` pages a person's feed, each note as it stands now.
//! - `GET /api/events?since=` (or `Last-Event-ID`) streams it as server-sent events.
//!
//! A `since` the feed does not cover — older than the purges it still keeps, or past its
//! end (a database restored under the client) — is 410 `changes-expired`: the client
//! starts over from `since=0`.

use axum::Router;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, Uri, header};
use axum::response::sse::{KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Deserialize;

use app::api::{CHANGES_PATH, EVENTS_PATH};

use super::hub::Refusal;
use super::page::read_page;
use super::stream::{self, Follow, KEEP_ALIVE};
use crate::accounts::session::SignedIn;
use crate::error::ApiError;
use crate::http::paging::parse_limit;
use crate::http::routing::allow;
use crate::state::AppState;

/// The feed's pages.
pub fn changes_router() -> Router<AppState> {
    Router::new().route(CHANGES_PATH, allow(get(list_changes), "GET"))
}

/// The stream. The router merges it outside the compression layer (see `startup`).
pub fn events_router() -> Router<AppState> {
    Router::new().route(EVENTS_PATH, allow(get(follow_events), "GET"))
}

#[derive(Deserialize)]
struct FeedParams {
    since: Option<String>,
    limit: Option<String>,
}

fn feed_params(uri: &Uri) -> Result<FeedParams, ApiError> {
    Ok(Query::<FeedParams>::try_from_uri(uri)
        .map_err(|e| ApiError::InvalidQuery(e.body_text()))?
        .0)
}

/// A seq as a client sends it: a whole number, 0 or more.
fn parse_seq(name: &str, text: &str) -> Result<i64, ApiError> {
    text.trim()
        .parse::<i64>()
        .ok()
        .filter(|n| *n >= 0)
        .ok_or_else(|| {
            ApiError::InvalidQuery(format!(
                "{name} must be a whole number, 0 or more, got {text:?}"
            ))
        })
}

/// `GET /api/changes?since=&limit=`.
async fn list_changes(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
    uri: Uri,
) -> Result<Response, ApiError> {
    let params = feed_params(&uri)?;
    let since = params
        .since
        .as_deref()
        .map(|s| parse_seq("since", s))
        .transpose()?
        .unwrap_or(0);
    let limit = parse_limit(params.limit.as_deref())?;
    let page = read_page(&state.store, &viewer.user_id, since, limit, true).await?;
    let mut response = axum::Json(page).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}

/// `GET /api/events?since=` (`Last-Event-ID` wins: it is where a reconnecting browser
/// stands). Without either, the stream starts at the person's latest seq.
async fn follow_events(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
    headers: HeaderMap,
    uri: Uri,
) -> Result<Response, ApiError> {
    // A stream holds one of the person's places: a page of another site — a sibling
    // subdomain is same-site, and its requests carry the cookie — may not take them.
    if headers
        .get("sec-fetch-site")
        .is_some_and(|site| site == "cross-site" || site == "same-site")
    {
        return Err(ApiError::CrossSite);
    }
    let last_id = headers
        .get("last-event-id")
        .map(|v| {
            v.to_str()
                .map_err(|_| ApiError::InvalidQuery("Last-Event-ID is not text".to_owned()))
                .and_then(|text| parse_seq("Last-Event-ID", text))
        })
        .transpose()?;
    let asked = match last_id {
        Some(seq) => Some(seq),
        None => feed_params(&uri)?
            .since
            .as_deref()
            .map(|s| parse_seq("since", s))
            .transpose()?,
    };
    let store = state.store.clone();
    let cursor = match asked {
        // Checked before the stream opens, so a client that must start over is told so
        // (a browser's EventSource does not reconnect after an error status).
        Some(since) => {
            read_page(&store, &viewer.user_id, since, 1, false).await?;
            since
        }
        None => store.changes().latest_seq(&viewer.user_id).await?,
    };
    let place = state
        .live
        .admit(&viewer.user_id)
        .map_err(|refusal| match refusal {
            Refusal::PersonFull => ApiError::TooManyStreams,
            Refusal::ProcessFull => ApiError::StreamsFull,
        })?;
    let events = stream::events(Follow {
        store,
        scope: viewer.user_id,
        via: viewer.via,
        cursor,
        place,
        lifetime: state.config.stream_lifetime,
    });
    let mut response = Sse::new(events)
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response();
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    // nginx and some other proxies hold a response back until it ends unless told.
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seq_is_a_whole_number_zero_or_more() {
        assert_eq!(parse_seq("since", "0").unwrap(), 0);
        assert_eq!(parse_seq("since", " 42 ").unwrap(), 42);
        for bad in ["-1", "x", "1.5", "", "99999999999999999999"] {
            assert!(parse_seq("since", bad).is_err(), "{bad:?}");
        }
    }
}
