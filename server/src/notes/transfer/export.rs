//! A person's notes, to take away: `GET /api/export` is a zip with `notes.json` (every
//! note, in the trash or not, as the API shows it) and one Markdown file per note.
//! `POST /api/import` (`import`) brings such a zip back.

use std::io::{Cursor, Write};

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use zip::write::SimpleFileOptions;

use app::api::Note;

use super::export_reader::FORMAT;
use crate::accounts::session::SignedIn;
use crate::error::ApiError;
use crate::state::AppState;
use crate::timestamp;

#[derive(Serialize)]
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
    let notes = state.store.notes().all_notes(&viewer.user_id).await?;
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

/// An export of `notes` as `GET /api/export` writes it (for the import's tests).
#[cfg(test)]
pub(super) fn zip_of(notes: Vec<Note>) -> Vec<u8> {
    write_zip(&Export {
        format: FORMAT.into(),
        version: 1,
        exported_at: timestamp::format(timestamp::now()),
        notes,
    })
    .expect("an export")
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
