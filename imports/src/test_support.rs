//! What the readers' tests share: the samples' folder, a sink that records what it was
//! handed, and zips and tars built from sample folders.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::{FileIn, FileStored, ForeignNote, Sink, SkipReason, Stop};

/// The folder of real exports the tests read (`shared/data/imports`); panics, naming the
/// path, when it is not there.
pub fn samples(kind: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/data/imports")
        .join(kind);
    assert!(
        path.is_dir(),
        "the sample exports are missing: {} should be a folder",
        path.display()
    );
    path
}

/// A file as the sink got it.
#[derive(Debug, Clone)]
pub struct Received {
    pub name: String,
    pub content_type: Option<String>,
    pub bytes: Vec<u8>,
    pub sha256: String,
}

/// One thing the sink was handed, in order.
#[derive(Debug, Clone)]
pub enum Event {
    File(Received),
    Note(ForeignNote),
    Skipped(String, SkipReason),
}

/// A sink that keeps everything it is handed.
#[derive(Default)]
pub struct Recorder {
    pub events: Vec<Event>,
}

impl Recorder {
    pub fn notes(&self) -> Vec<&ForeignNote> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::Note(n) => Some(n),
                _ => None,
            })
            .collect()
    }

    pub fn files(&self) -> Vec<&Received> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::File(f) => Some(f),
                _ => None,
            })
            .collect()
    }

    pub fn skipped(&self) -> Vec<(&str, SkipReason)> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::Skipped(name, why) => Some((name.as_str(), *why)),
                _ => None,
            })
            .collect()
    }

    /// The note titled (or named) `title`; panics when there is none.
    pub fn note(&self, title: &str) -> &ForeignNote {
        self.notes()
            .into_iter()
            .find(|n| n.title == title || n.name == title)
            .unwrap_or_else(|| panic!("no note {title:?} among {:#?}", self.notes()))
    }
}

impl Sink for Recorder {
    fn file(&mut self, file: FileIn<'_>) -> Result<FileStored, Stop> {
        let mut bytes = Vec::new();
        file.bytes.read_to_end(&mut bytes).map_err(|_| Stop)?;
        let sha256 = hex::encode(Sha256::digest(&bytes));
        self.events.push(Event::File(Received {
            name: file.name.to_owned(),
            content_type: file.content_type.map(str::to_owned),
            bytes,
            sha256: sha256.clone(),
        }));
        Ok(FileStored::Stored { sha256 })
    }

    fn note(&mut self, note: ForeignNote) -> Result<(), Stop> {
        self.events.push(Event::Note(note));
        Ok(())
    }

    fn skipped(&mut self, name: &str, reason: SkipReason) -> Result<(), Stop> {
        self.events.push(Event::Skipped(name.to_owned(), reason));
        Ok(())
    }
}

/// Every file under `folder` (hidden folders too), as (path relative to it with `/`,
/// absolute path), sorted.
pub fn files_under(folder: &Path) -> Vec<(String, PathBuf)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let rel = path.strip_prefix(root).unwrap();
                let name = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                out.push((name, path));
            }
        }
    }
    let mut out = Vec::new();
    walk(folder, folder, &mut out);
    out.sort();
    out
}

/// Writes a zip at `path` holding `entries` (name in the zip, bytes).
pub fn write_zip(path: &Path, entries: &[(String, Vec<u8>)]) {
    let mut zip = zip::ZipWriter::new(File::create(path).unwrap());
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::from_date_and_time(2024, 3, 9, 10, 30, 0).unwrap());
    for (name, bytes) in entries {
        zip.start_file(name.as_str(), options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
}

/// Writes a tar at `path` holding `entries` (name in the tar, bytes).
pub fn write_tar(path: &Path, entries: &[(String, Vec<u8>)]) {
    let mut tar = tar::Builder::new(File::create(path).unwrap());
    for (name, bytes) in entries {
        let mut header = tar::Header::new_ustar();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_mtime(1_700_000_000);
        tar.append_data(&mut header, name, bytes.as_slice())
            .unwrap();
    }
    tar.into_inner().unwrap().flush().unwrap();
}

/// The files under `folder` as entries under `prefix` (`""` or ending in `/`).
pub fn entries_of(folder: &Path, prefix: &str) -> Vec<(String, Vec<u8>)> {
    files_under(folder)
        .into_iter()
        .map(|(name, path)| (format!("{prefix}{name}"), std::fs::read(path).unwrap()))
        .collect()
}

/// The SHA-256 of a file, as the sink names it.
pub fn sha256_of(path: &Path) -> io::Result<String> {
    Ok(hex::encode(Sha256::digest(std::fs::read(path)?)))
}
