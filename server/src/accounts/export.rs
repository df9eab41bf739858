//! A person's notes, to take away and bring back: `GET /api/export` is a zip with
//! `notes.json` (every note, in the trash or not, as the API shows it) and one Markdown
//! file per note; `POST /api/import` takes such a zip and makes each note again through
//! the ordinary idempotent create, with a key derived from the note's id — so importing
//! the same export twice adds nothing (the second time every create is a replay).

use std::io::{Cursor, Read, Write};

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use zip::write::SimpleFileOptions;

use app::api::{NewNote, Note};

use super::session::SignedIn;
use crate::error::ApiError;
use crate::http::body::read_at_most;
use crate::idempotency::{self, IdempotencyKey};
use crate::notes::changes::{IfMatch, Lifecycle, ValidLifecycle};
use crate::notes::new_note::ValidNewNote;
use crate::notes::writes::{ChangeLifecycle, CreateNote, CreateReply};
use crate::state::AppState;
use crate::timestamp;

/// The largest export accepted for import.
const IMPORT_MAX_BYTES: usize = 64 * 1024 * 1024;
/// What `notes.json` says it is.
const FORMAT: &str = "oncenote-export";

#[derive(Serialize, Deserialize)]
struct Export {
    format: String,
    version: u32,
    exported_at: String,
    notes: Vec<Note>,
}

/// `GET /api/export`.
pub async fn download(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
) -> Result<Response, ApiError> {
    let notes = state.store.all_notes(&viewer.user_id).await?;
    let exported_at = timestamp::format(timestamp::now());
    let zip = write_zip(&Export {
        format: FORMAT.into(),
        version: 1,
        exported_at: exported_at.clone(),
        notes,
    })
    .map_err(|e| ApiError::Internal(e.context("writing an export")))?;
    let name = format!("oncenote-{}-{}.zip", viewer.username, &exported_at[..10]);
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{name}\""))
        .unwrap_or(HeaderValue::from_static("attachment"));
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/zip"),
            ),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        zip,
    )
        .into_response())
}

fn write_zip(export: &Export) -> anyhow::Result<Vec<u8>> {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    zip.start_file("notes.json", options)?;
    zip.write_all(&serde_json::to_vec_pretty(export)?)?;
    for (n, note) in export.notes.iter().enumerate() {
        let folder = if note.trashed_at.is_some() {
            "trash"
        } else {
            "notes"
        };
        zip.start_file(
            format!("{folder}/{:04}-{}.md", n + 1, slug(&note.title)),
            options,
        )?;
        zip.write_all(markdown(note).as_bytes())?;
    }
    Ok(zip.finish()?.into_inner())
}

/// A note as a Markdown file: a little front matter, the title as a heading, the body.
fn markdown(note: &Note) -> String {
    format!(
        "---\nid: {}\nwritten_at: {}\nupdated_at: {}\n---\n\n# {}\n\n{}\n",
        note.id, note.written_at, note.updated_at, note.title, note.body
    )
}

/// A file-name-safe form of a title.
fn slug(title: &str) -> String {
    let slug: String = title
        .chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect::<String>()
        .split('-')
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    let slug: String = slug.chars().take(40).collect();
    if slug.is_empty() { "note".into() } else { slug }
}

#[derive(Serialize, Default)]
struct Imported {
    /// Notes made by this import.
    imported: usize,
    /// Notes an earlier import of the same export had made already.
    already_there: usize,
    /// Notes that could not be made, with why.
    failed: Vec<String>,
}

/// `POST /api/import` with a zip made by `GET /api/export`.
pub async fn upload(
    State(state): State<AppState>,
    SignedIn(viewer): SignedIn,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let bytes = read_at_most(
        &headers,
        body,
        state.config.body_timeout * 4,
        IMPORT_MAX_BYTES,
    )
    .await?;
    let export = read_zip(&bytes)?;
    let mut result = Imported::default();
    for note in export.notes {
        let made = import_one(&state, &viewer.user_id, &note).await;
        match made {
            Ok(true) => result.imported += 1,
            Ok(false) => result.already_there += 1,
            Err(error) => result.failed.push(format!("{:?}: {error}", note.title)),
        }
    }
    tracing::info!(
        imported = result.imported,
        already_there = result.already_there,
        failed = result.failed.len(),
        "import done"
    );
    Ok(axum::Json(result).into_response())
}

fn read_zip(bytes: &[u8]) -> Result<Export, ApiError> {
    let invalid =
        |why: String| ApiError::InvalidBody(format!("this is not an oncenote export: {why}"));
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| invalid(e.to_string()))?;
    let mut file = zip
        .by_name("notes.json")
        .map_err(|e| invalid(e.to_string()))?;
    let mut json = Vec::new();
    file.read_to_end(&mut json)
        .map_err(|e| invalid(e.to_string()))?;
    let export: Export = serde_json::from_slice(&json).map_err(|e| invalid(e.to_string()))?;
    if export.format != FORMAT {
        return Err(invalid(format!("its format is {:?}", export.format)));
    }
    Ok(export)
}

/// Makes one exported note again (and moves it to the trash if it was there). True if it
/// is new, false if an earlier import made it.
async fn import_one(state: &AppState, scope: &str, note: &Note) -> Result<bool, ApiError> {
    let key = IdempotencyKey::parse(&format!("import-{}", note.id))?;
    let create = CreateNote {
        note: ValidNewNote::parse(NewNote {
            title: note.title.clone(),
            body: note.body.clone(),
            written_at: note.written_at.clone(),
        })?,
        reply: CreateReply::Json,
    };
    let answer = idempotency::execute(state, scope, &key, create).await?;
    let made: Note =
        serde_json::from_slice(&answer.stored.body).map_err(|e| ApiError::Internal(e.into()))?;
    if note.trashed_at.is_some() {
        let trash = ChangeLifecycle(ValidLifecycle {
            id: made.id,
            change: Lifecycle::Trash,
            if_match: IfMatch::Absent,
        });
        let key = IdempotencyKey::parse(&format!("import-trash-{}", note.id))?;
        idempotency::execute(state, scope, &key, trash).await?;
    }
    Ok(!answer.replayed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_become_plain_file_names() {
        assert_eq!(slug("Crème brûlée: take 2!"), "crème-brûlée-take-2");
        assert_eq!(slug("../../etc/passwd"), "etc-passwd");
        assert_eq!(slug("???"), "note");
    }
}
