//! `POST /api/import`: an export, of oncenote or of another app, made into the person's
//! notes exactly once.
//!
//! The upload is spooled to local disk first (with its files an export may hold a
//! gigabyte), its kind told from its content (`imports::detect`: never its name or its
//! `Content-Type`), then it is read one note at a time: an oncenote export by
//! `own_export`, another app's by `foreign`. Every note is made through the ordinary
//! idempotent create with a key derived from the note's place in its export, so the same
//! export imported twice, or imported again after it was cut short (a closed tab, a killed
//! server), makes each note once.
//!
//! The answer is the report at the end; a page that asks for
//! `Accept: application/x-ndjson` gets lines of progress first, then the report (or the
//! problem that stopped the import) as the last line.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tokio::sync::{oneshot, watch};

use app::api::{IMPORT_PROGRESS_TYPE, ImportLine, ImportProgress, ImportReport};
use imports::Kind;

use super::{foreign, own_export};
use crate::accounts::session::SignedIn;
use crate::error::ApiError;
use crate::files::limits::UploadSlot;
use crate::files::spool::SpoolFile;
use crate::files::upload::{Pace, receive, spool_failure};
use crate::state::AppState;

/// The largest export accepted for import, besides its files (which may add up to the
/// person's quota).
pub const IMPORT_MAX_BYTES: u64 = 64 * 1024 * 1024;
/// How often a page asking for progress is told how far the import has come.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// `POST /api/import` with an export of any kind we read.
pub async fn upload(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    // While its bytes arrive an import holds a place of those on their way (one of each
    // person's: 429; four of everyone's: 503), not one of the two imports the process
    // runs, so two people who upload slowly (or never finish) keep no one else's import
    // from running, and the spool holds at most four imports arriving.
    let spooling = state.uploads.imports_arriving.begin(&viewer.user_id)?;
    let max = IMPORT_MAX_BYTES.saturating_add(state.config.file_quota_bytes);
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|length| length > max) {
        return Err(ApiError::PayloadTooLarge {
            limit: usize::try_from(max).unwrap_or(usize::MAX),
        });
    }
    let mut export = state.uploads.spool.create().await.map_err(spool_failure)?;
    receive(
        body,
        &mut export,
        max,
        state.config.body_timeout,
        Pace::of(&state.config),
    )
    .await?;
    // Spooled: one import of each person's at once (429 past it), a few of everyone's
    // (503), both with Retry-After; the place is held until the import stops reading,
    // even when its request goes away sooner.
    let running = state.uploads.imports.begin(&viewer.user_id)?;
    drop(spooling);
    let path = export.path().to_owned();
    let kind = tokio::task::spawn_blocking(move || imports::detect(&path))
        .await
        .map_err(|e| ApiError::Internal(e.into()))?
        .map_err(|e| ApiError::Internal(anyhow::Error::new(e).context("reading a spooled import")))?
        .ok_or_else(unknown_kind)?;
    let run = Run {
        state,
        scope: viewer.user_id,
        kind,
        export,
        _running: running,
    };
    let (watching, finished) = run.start();
    if wants_progress(&headers) {
        return Ok(with_progress(watching, finished));
    }
    // Watched only by this request: the import stops when the request goes away.
    let _watching = watching;
    let report = finished
        .await
        .map_err(|_| ApiError::Internal(anyhow::anyhow!("the import ended without an answer")))??;
    Ok(axum::Json(report).into_response())
}

/// An import about to run, holding its spooled upload and its place among the imports
/// running (both let go when it ends).
struct Run {
    state: AppState,
    scope: String,
    kind: Kind,
    export: SpoolFile,
    _running: UploadSlot,
}

impl Run {
    async fn run(self, progress: watch::Sender<ImportProgress>) -> Result<ImportReport, ApiError> {
        let path = self.export.path().to_owned();
        match self.kind {
            Kind::Oncenote => own_export::import(&self.state, &self.scope, &path, &progress).await,
            kind => foreign::import(&self.state, &self.scope, kind, path, progress).await,
        }
    }

    /// Runs the import apart, owning its upload and its place until it stops reading. It
    /// stops when nobody watches its progress any more (the request went away).
    fn start(self) -> (watch::Receiver<ImportProgress>, Finished) {
        let (progress, watching) = watch::channel(ImportProgress::default());
        let (done, finished) = oneshot::channel();
        tokio::spawn(async move {
            let _ = done.send(self.run(progress).await);
        });
        (watching, finished)
    }
}

/// The end of an import running apart.
type Finished = oneshot::Receiver<Result<ImportReport, ApiError>>;

/// The answer of an import watched by its page: a stream of [`ImportLine`]s, progress every
/// [`PROGRESS_EVERY`], then the report or the problem. Dropping the stream (the page went
/// away) stops the import.
fn with_progress(watching: watch::Receiver<ImportProgress>, finished: Finished) -> Response {
    let lines = futures::stream::unfold(Some((watching, finished)), |state| async move {
        let (mut watching, mut finished) = state?;
        tokio::select! {
            biased;
            result = &mut finished => {
                let line = match result {
                    Ok(Ok(report)) => ImportLine::Report(report),
                    Ok(Err(error)) => {
                        error.log(None);
                        ImportLine::Problem(error.problem())
                    }
                    Err(_) => ImportLine::Problem(
                        ApiError::Internal(anyhow::anyhow!("the import ended without an answer"))
                            .problem(),
                    ),
                };
                Some((line_bytes(&line), None))
            }
            _ = tokio::time::sleep(PROGRESS_EVERY) => {
                let now = watching.borrow_and_update().clone();
                Some((line_bytes(&ImportLine::Progress(now)), Some((watching, finished))))
            }
        }
    });
    let mut response = Response::new(Body::from_stream(lines));
    *response.status_mut() = StatusCode::OK;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(IMPORT_PROGRESS_TYPE),
    );
    response
}

/// One line of the progress stream.
fn line_bytes(line: &ImportLine) -> Result<Bytes, std::convert::Infallible> {
    let mut bytes = serde_json::to_vec(line).unwrap_or_default();
    bytes.push(b'\n');
    Ok(Bytes::from(bytes))
}

/// Whether the request asks for lines of progress.
fn wants_progress(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| {
            v.split(',')
                .any(|t| t.trim().starts_with(IMPORT_PROGRESS_TYPE))
        })
}

/// 415 for a file of no kind we read.
fn unknown_kind() -> ApiError {
    ApiError::UnsupportedMediaType(
        "this file is no export oncenote can import: it takes an oncenote export, a Google \
         Takeout of Keep (zip), an Evernote .enex, a Standard Notes decrypted backup, a \
         Joplin .jex (or a zip of its export) and a zip of Markdown files"
            .into(),
    )
}
