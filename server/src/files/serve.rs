//! `GET /files/{sha256}`: a file's bytes, to its owner only, served so that nothing in
//! them can run on this site.
//!
//! - Anyone but the owner — another person, or nobody signed in — gets the same 404 as
//!   for a name no one has: whether a file exists is not told to anyone else.
//! - Every answer about a file carries `X-Content-Type-Options: nosniff`,
//!   `Content-Security-Policy: sandbox` (a document opened from it anyway gets no script,
//!   no forms, a unique origin), its `ETag` (the name: the bytes never change),
//!   `Cache-Control: private, no-cache` and whose it is (`X-Oncenote-User`, for the service
//!   worker, which keeps an image for its owner only). `If-None-Match` → 304.
//! - *Not* cached for a year, though the bytes never change (issue #60): a file the
//!   browser's HTTP cache could serve without asking would be served to whoever uses that
//!   browser next, past the owner check. `no-cache` has the browser ask each time; the
//!   owner's ask is a cheap 304 (the owner check runs first, so no one else gets one).
//! - An image by its bytes (`sniff`) is inline under its sniffed type; anything else is
//!   `Content-Disposition: attachment`, under its declared type unless a browser could
//!   run it (then `application/octet-stream`).
//! - `Range` (`range`) → 206 with only the chunks it needs read; 416 past the end.
//! - The body is streamed a few chunks per query, never the whole file in memory. Such an
//!   answer is never compressed (it carries [`FileBytes`], which `startup`'s compression
//!   skips), so its length and its ranges stay the file's own.

use axum::Extension;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use app::api::{OWNER_HEADER, is_file_name};

use super::range::RangeAsk;
use super::sniff::{attachment_type, download_name, image_type};
use crate::error::ApiError;
use crate::records::Viewer;
use crate::storage::Store;
use crate::storage::files::{FILE_CHUNK_BYTES, StoredFile, chunks_of_range};

/// Chunks read per query while a body streams: 1 MiB, a few round trips for 25 MiB.
const CHUNKS_PER_READ: u32 = 4;

/// The mark, in a response's extensions, of an answer about a file's bytes: never to be
/// compressed. A mark rather than a header (`Accept-Ranges`): the site's static assets
/// offer ranges too, and they should be compressed.
#[derive(Clone, Copy, Debug)]
pub struct FileBytes;

/// `GET /files/{sha256}` (and `HEAD`).
pub async fn get_file(
    State(store): State<Store>,
    viewer: Option<Extension<Viewer>>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Response {
    match serve(&store, viewer.map(|v| v.0), &name, &headers).await {
        Ok(mut response) => {
            response.extensions_mut().insert(FileBytes);
            response
        }
        Err(error) => {
            error.log(None);
            error.into_response()
        }
    }
}

fn not_found() -> ApiError {
    ApiError::NotFound("no such file".into())
}

async fn serve(
    store: &Store,
    viewer: Option<Viewer>,
    name: &str,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let viewer = viewer.ok_or_else(not_found)?;
    if !is_file_name(name) {
        return Err(not_found());
    }
    let scope = viewer.user_id;
    let file = store
        .files()
        .file(&scope, name)
        .await?
        .ok_or_else(not_found)?;
    let etag = format!("\"{}\"", file.sha256);
    if matches_etag(headers.get(header::IF_NONE_MATCH), &etag) {
        let mut response = StatusCode::NOT_MODIFIED.into_response();
        file_headers(response.headers_mut(), &etag, &scope);
        return Ok(response);
    }
    // The first bytes say whether it is an image (a range further on reads them too).
    let head = if file.size == 0 {
        Vec::new()
    } else {
        store
            .files()
            .file_chunks(&scope, name, 0, 0)
            .await?
            .into_iter()
            .next()
            .ok_or_else(|| missing_chunks(&file))?
    };
    let (served_type, disposition) = match image_type(&head[..head.len().min(16)]) {
        Some(image) => (image.to_owned(), "inline".to_owned()),
        None => {
            let served = attachment_type(&file.content_type).to_owned();
            let name = download_name(&file.sha256, &served);
            (served, format!("attachment; filename=\"{name}\""))
        }
    };
    let range_header = headers.get(header::RANGE).and_then(|v| v.to_str().ok());
    // `If-Range` with another validator: the whole file (it is not the one the client has).
    let if_range_ok = headers
        .get(header::IF_RANGE)
        .is_none_or(|v| v.to_str().is_ok_and(|v| v.trim() == etag));
    let ask = if if_range_ok {
        RangeAsk::parse(range_header, file.size)
    } else {
        RangeAsk::Whole
    };
    let (status, first, last) = match ask {
        RangeAsk::Unsatisfiable => {
            let mut response = StatusCode::RANGE_NOT_SATISFIABLE.into_response();
            let headers = response.headers_mut();
            file_headers(headers, &etag, &scope);
            if let Ok(range) = HeaderValue::from_str(&format!("bytes */{}", file.size)) {
                headers.insert(header::CONTENT_RANGE, range);
            }
            return Ok(response);
        }
        RangeAsk::Whole => (StatusCode::OK, 0, file.size.saturating_sub(1)),
        RangeAsk::Part { first, last } => (StatusCode::PARTIAL_CONTENT, first, last),
    };
    let length = if file.size == 0 { 0 } else { last - first + 1 };
    let body = if length == 0 {
        Body::empty()
    } else {
        stream_body(
            store.clone(),
            scope.clone(),
            file.clone(),
            head,
            first,
            last,
        )
    };
    let mut response = (status, body).into_response();
    let headers = response.headers_mut();
    file_headers(headers, &etag, &scope);
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    if status == StatusCode::PARTIAL_CONTENT
        && let Ok(range) = HeaderValue::from_str(&format!("bytes {first}-{last}/{}", file.size))
    {
        headers.insert(header::CONTENT_RANGE, range);
    }
    if let Ok(value) = HeaderValue::from_str(&served_type) {
        headers.insert(header::CONTENT_TYPE, value);
    }
    if let Ok(value) = HeaderValue::from_str(&disposition) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    Ok(response)
}

/// The headers of every answer about a file, whose owner is `owner`.
fn file_headers(headers: &mut HeaderMap, etag: &str, owner: &str) {
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("sandbox"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-cache"),
    );
    headers.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    if let Ok(etag) = HeaderValue::from_str(etag) {
        headers.insert(header::ETAG, etag);
    }
    if let Ok(owner) = HeaderValue::from_str(owner) {
        headers.insert(OWNER_HEADER, owner);
    }
}

/// Whether `If-None-Match` names this file (strong or weak, or `*`).
fn matches_etag(header: Option<&HeaderValue>, etag: &str) -> bool {
    header.and_then(|v| v.to_str().ok()).is_some_and(|value| {
        value
            .split(',')
            .map(str::trim)
            .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == etag)
    })
}

fn missing_chunks(file: &StoredFile) -> ApiError {
    ApiError::Internal(anyhow::anyhow!(
        "the file {} has fewer chunks than its size needs",
        file.sha256
    ))
}

/// Bytes `first..=last` of the file, read [`CHUNKS_PER_READ`] chunks per query as the
/// client takes them; `head` is chunk 0, read already.
fn stream_body(
    store: Store,
    scope: String,
    file: StoredFile,
    head: Vec<u8>,
    first: u64,
    last: u64,
) -> Body {
    let (first_chunk, last_chunk) = chunks_of_range(first, last);
    let mut head = Some(head);
    let stream = futures::stream::try_unfold(first_chunk, move |next| {
        let (store, scope, file) = (store.clone(), scope.clone(), file.clone());
        let head = if next == 0 { head.take() } else { None };
        async move {
            if next > last_chunk {
                return Ok(None);
            }
            let upto = match head {
                Some(_) => 0,
                None => last_chunk.min(next + CHUNKS_PER_READ - 1),
            };
            let chunks = match head {
                Some(head) => vec![head],
                None => store
                    .files()
                    .file_chunks(&scope, &file.sha256, next, upto)
                    .await
                    .map_err(std::io::Error::other)?,
            };
            if chunks.len() != (upto - next + 1) as usize {
                // Deleted while it was being served: end the answer short, as an error.
                return Err(std::io::Error::other(format!(
                    "the file {} lost chunks while it was served",
                    file.sha256
                )));
            }
            let mut bytes = Vec::new();
            for (offset, chunk) in chunks.iter().enumerate() {
                let start = u64::from(next + offset as u32) * FILE_CHUNK_BYTES as u64;
                let from = first.saturating_sub(start).min(chunk.len() as u64) as usize;
                let to = (last + 1 - start).min(chunk.len() as u64) as usize;
                bytes.extend_from_slice(&chunk[from..to]);
            }
            Ok(Some((Bytes::from(bytes), upto + 1)))
        }
    });
    Body::from_stream(stream)
}
