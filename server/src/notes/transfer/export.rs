//! A person's notes, to take away: `GET /api/export` is a zip with `notes.json` (every
//! note, in the trash or not, as the API shows it), one Markdown file per note, and the
//! person's files: `files.json` (each file's name, size, type and upload time) and
//! `files/<sha256>`, the bytes. `POST /api/import` (`import`) brings such a zip back.
//!
//! The zip is written to a spool file, the files' bytes read from the database a few
//! chunks at a time, and the spool file is streamed back: memory holds the notes and a
//! few chunks, never the files (a person may hold a gigabyte of them).
//!
//! Because each export holds up to a quota of spool, exports take a place first
//! (`Uploads::exports`: one per person, 429 `too-many-exports`; two per process, 503
//! `exports-full`), held until the answer's body is sent or dropped — the spool file
//! lives that long.

use std::io::{Seek, Write};

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde::Serialize;
use tokio::io::AsyncReadExt;
use zip::write::SimpleFileOptions;

use app::api::{FileInfo, Note};

use super::export_reader::{FILES_DIR, FILES_JSON, FORMAT};
use crate::accounts::session::SignedIn;
use crate::error::ApiError;
use crate::files::limits::UploadSlot;
use crate::files::spool::SpoolFile;
use crate::state::AppState;
use crate::storage::Store;
use crate::timestamp;

/// Chunks of a file read from the database at once (4 MiB).
const CHUNKS_AT_ONCE: u32 = 16;
/// The bytes of the answer read from the spool file at once.
const STREAM_PIECE: usize = 64 * 1024;

/// `files.json`: the files the export holds.
#[derive(Serialize)]
struct ExportedFiles<'a> {
    files: &'a [FileInfo],
}

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
    let place = state.uploads.exports.begin(&viewer.user_id)?;
    let notes = state.store.notes().all_notes(&viewer.user_id).await?;
    let (files, _) = state.store.files().files_of(&viewer.user_id).await?;
    let files: Vec<FileInfo> = files.into_iter().map(FileInfo::from).collect();
    let exported_at = timestamp::format(timestamp::now());
    let export = Export {
        format: FORMAT.into(),
        version: 2,
        exported_at: exported_at.clone(),
        notes,
    };
    let mut spool = state.uploads.spool.create().await.map_err(export_failure)?;
    spool.finish().await.map_err(export_failure)?;
    let path = spool.path().to_owned();
    let (store, scope) = (state.store.clone(), viewer.user_id.clone());
    let runtime = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || {
        let out = std::fs::OpenOptions::new().write(true).open(&path)?;
        write_zip(out, &export, &files, |file, into| {
            runtime.block_on(copy_file(&store, &scope, file, into))
        })?;
        anyhow::Ok(())
    })
    .await
    .map_err(|e| ApiError::Internal(e.into()))?
    .map_err(|e| match e.downcast_ref::<std::io::Error>() {
        Some(io) if io.kind() == std::io::ErrorKind::StorageFull => ApiError::StorageFull,
        _ => ApiError::Internal(e.context("writing an export")),
    })?;
    let name = format!("oncenote-{}-{}.zip", viewer.username, &exported_at[..10]);
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{name}\""))
        .unwrap_or(HeaderValue::from_static("attachment"));
    let (length, body) = stream_spool(spool, place).await.map_err(export_failure)?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/zip"),
            ),
            (header::CONTENT_DISPOSITION, disposition),
            (header::CONTENT_LENGTH, HeaderValue::from(length)),
        ],
        body,
    )
        .into_response())
}

/// Writes the file's bytes into the zip entry, a few chunks at a time, and checks they are
/// as many as the file's size. A file swept while the export was written (no note showed
/// it for the grace period) is left out, not a failure of the whole export: false.
async fn copy_file(
    store: &Store,
    scope: &str,
    file: &FileInfo,
    into: &mut dyn Write,
) -> anyhow::Result<bool> {
    let mut written: u64 = 0;
    let mut first: u32 = 0;
    loop {
        let chunks = store
            .files()
            .file_chunks(scope, &file.sha256, first, first + CHUNKS_AT_ONCE - 1)
            .await?;
        for chunk in &chunks {
            into.write_all(chunk)?;
            written += chunk.len() as u64;
        }
        if (chunks.len() as u32) < CHUNKS_AT_ONCE {
            break;
        }
        first += CHUNKS_AT_ONCE;
    }
    if written != file.size && store.files().file(scope, &file.sha256).await?.is_none() {
        tracing::info!(
            sha256 = %file.sha256,
            "a file was swept while an export was written; the export leaves it out"
        );
        return Ok(false);
    }
    anyhow::ensure!(
        written == file.size,
        "file {} has {written} bytes stored, not its {}",
        file.sha256,
        file.size
    );
    Ok(true)
}

/// The spool file as the answer's body, read a piece at a time; the file is removed, and
/// the export's place given back, once the body is sent (or dropped).
async fn stream_spool(spool: SpoolFile, place: UploadSlot) -> std::io::Result<(u64, Body)> {
    let file = tokio::fs::File::open(spool.path()).await?;
    let length = file.metadata().await?.len();
    let pieces = futures::stream::unfold(
        (file, (spool, place), vec![0u8; STREAM_PIECE]),
        |(mut file, held, mut buffer)| async move {
            match file.read(&mut buffer).await {
                Ok(0) => None,
                Ok(n) => {
                    let piece = axum::body::Bytes::copy_from_slice(&buffer[..n]);
                    Some((Ok(piece), (file, held, buffer)))
                }
                Err(error) => Some((Err(error), (file, held, buffer))),
            }
        },
    )
    // The compression layer polls its body once more after the end (a zip is compressed
    // too when the client accepts gzip, as every browser does), and `unfold` panics when
    // polled after its end: fused, it ends again.
    .fuse();
    Ok((length, Body::from_stream(pieces)))
}

fn export_failure(error: std::io::Error) -> ApiError {
    if error.kind() == std::io::ErrorKind::StorageFull {
        ApiError::StorageFull
    } else {
        ApiError::Internal(anyhow::Error::new(error).context("writing an export"))
    }
}

/// An export of `notes` as `GET /api/export` writes it (for the import's tests).
#[cfg(test)]
pub(super) fn zip_of(notes: Vec<Note>) -> Vec<u8> {
    let export = Export {
        format: FORMAT.into(),
        version: 2,
        exported_at: timestamp::format(timestamp::now()),
        notes,
    };
    write_zip(std::io::Cursor::new(Vec::new()), &export, &[], |_, _| {
        Ok(true)
    })
    .expect("an export")
    .into_inner()
}

/// Writes the export into `out`: the notes, then the files, each file's bytes written
/// into its entry by `bytes_of` — which answers false for a file gone meanwhile, whose
/// entry is then taken out again — and last `files.json`, listing the files written.
/// Files are stored as they are (no compression: images and PDFs are compressed already).
fn write_zip<W: Write + Seek>(
    out: W,
    export: &Export,
    files: &[FileInfo],
    mut bytes_of: impl FnMut(&FileInfo, &mut dyn Write) -> anyhow::Result<bool>,
) -> anyhow::Result<W> {
    let mut zip = zip::ZipWriter::new(out);
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
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    let mut written = Vec::with_capacity(files.len());
    for file in files {
        zip.start_file(format!("{FILES_DIR}/{}", file.sha256), stored)?;
        if bytes_of(file, &mut zip)? {
            written.push(file.clone());
        } else {
            zip.abort_file()?;
        }
    }
    zip.start_file(FILES_JSON, options)?;
    zip.write_all(&serde_json::to_vec_pretty(&ExportedFiles {
        files: &written,
    })?)?;
    Ok(zip.finish()?)
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

    fn file(sha256: &str, size: u64) -> FileInfo {
        FileInfo {
            sha256: sha256.into(),
            size,
            content_type: "application/pdf".into(),
            created_at: "2026-11-30T05:00:00.000Z".into(),
        }
    }

    #[test]
    fn a_file_gone_while_the_export_is_written_is_left_out_of_it_and_of_its_list() {
        let export = Export {
            format: FORMAT.into(),
            version: 2,
            exported_at: timestamp::format(timestamp::now()),
            notes: Vec::new(),
        };
        let (kept, gone) = ("a".repeat(64), "b".repeat(64));
        let files = [file(&gone, 3), file(&kept, 4)];
        let zip = write_zip(
            std::io::Cursor::new(Vec::new()),
            &export,
            &files,
            |file, into| {
                if file.sha256 == gone {
                    // Part of it written before the rest was found swept.
                    into.write_all(b"go")?;
                    return Ok(false);
                }
                into.write_all(b"kept")?;
                Ok(true)
            },
        )
        .unwrap()
        .into_inner();
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip)).unwrap();
        assert!(archive.by_name(&format!("{FILES_DIR}/{gone}")).is_err());
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(
            &mut archive.by_name(&format!("{FILES_DIR}/{kept}")).unwrap(),
            &mut bytes,
        )
        .unwrap();
        assert_eq!(bytes, b"kept");
        let listed: serde_json::Value =
            serde_json::from_reader(archive.by_name(FILES_JSON).unwrap()).unwrap();
        let listed = listed["files"].as_array().unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0]["sha256"], kept.as_str());
    }

    #[test]
    fn titles_become_plain_file_names() {
        assert_eq!(slug("Crème brûlée: take 2!"), "crème-brûlée-take-2");
        assert_eq!(slug("../../etc/passwd"), "etc-passwd");
        assert_eq!(slug("???"), "note");
    }
}
