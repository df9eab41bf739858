//! Imports of other apps' exports (Google Keep, Evernote, Standard Notes, Joplin, Markdown
//! folders): the `imports` crate reads them, note by note; [`sink::NoteSink`] makes each
//! note here; [`prepared`] and [`tag_names`] say how a note of another app becomes one of
//! ours.

pub mod prepared;
pub mod sink;
pub mod tag_names;

use std::path::PathBuf;

use tokio::sync::watch;

use app::api::{ImportProgress, ImportReport};
use imports::{Kind, Limits, ReadError};

use crate::error::ApiError;
use crate::state::AppState;
use sink::NoteSink;

/// Imports the export of `kind` spooled at `path` into `scope`'s notes, telling
/// `progress` as it goes. Stops (and says why) when the database cannot write, or when
/// nobody watches `progress` any more (the request went away).
pub async fn import(
    state: &AppState,
    scope: &str,
    kind: Kind,
    path: PathBuf,
    progress: watch::Sender<ImportProgress>,
) -> Result<ImportReport, ApiError> {
    let upload_bytes = tokio::fs::metadata(&path)
        .await
        .map_err(|e| ApiError::Internal(anyhow::Error::new(e).context("a spooled import")))?
        .len();
    let mut sink = NoteSink::new(
        state.clone(),
        scope.to_owned(),
        kind,
        tokio::runtime::Handle::current(),
        progress,
        upload_bytes,
    );
    let (read, sink) = tokio::task::spawn_blocking(move || {
        let read = imports::read(kind, &path, &mut sink, &Limits::default());
        (read, sink)
    })
    .await
    .map_err(|e| ApiError::Internal(e.into()))?;
    let report = sink.report();
    // What a refusal half-way says was done before it: that much stays, and the same
    // file (mended) imported again goes on from there.
    let so_far = match report.imported + report.already_there {
        0 => String::new(),
        n => format!(
            " ({n} notes before it were imported; importing the file again adds none of them twice)"
        ),
    };
    tracing::info!(
        kind = kind.as_str(),
        imported = report.imported,
        already_there = report.already_there,
        skipped = report.skipped,
        failed = report.failed.len(),
        files = report.files,
        finished = read.is_ok(),
        "import of another app's export"
    );
    match read {
        Ok(()) => sink.finish(),
        Err(ReadError::Stopped) => match sink.finish() {
            Err(error) => Err(error),
            Ok(_) => Err(ApiError::Internal(anyhow::anyhow!(
                "the import stopped without a reason"
            ))),
        },
        Err(ReadError::Malformed(why)) => Err(ApiError::ValidationFailed(format!(
            "this {} export cannot be read: {why}{so_far}",
            kind_name(kind)
        ))),
        Err(ReadError::TooLarge(why)) => Err(ApiError::UnpacksTooLarge(format!("{why}{so_far}"))),
        Err(ReadError::Io(error)) => Err(ApiError::Internal(
            anyhow::Error::new(error).context("reading a spooled import"),
        )),
    }
}

/// The app's name, as a person knows it.
pub fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Oncenote => "oncenote",
        Kind::Keep => "Google Keep",
        Kind::Evernote => "Evernote",
        Kind::StandardNotes => "Standard Notes",
        Kind::Joplin => "Joplin",
        Kind::Markdown => "Markdown",
    }
}
