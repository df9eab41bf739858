//! For the readers' tests: a sink that keeps what it is given (files by the SHA-256 of
//! their bytes, as the server would), and the shared samples' folder.

use std::path::PathBuf;

use sha2::{Digest, Sha256};

use crate::{FileIn, FileStored, ForeignNote, Sink, SkipReason, Stop};

/// A file the sink was handed.
pub(crate) struct KeptFile {
    pub name: String,
    pub content_type: Option<String>,
    pub bytes: Vec<u8>,
    pub sha256: String,
}

/// Keeps every note, file and skip, in order.
#[derive(Default)]
pub(crate) struct RecordingSink {
    pub notes: Vec<ForeignNote>,
    pub files: Vec<KeptFile>,
    pub skipped: Vec<(String, SkipReason)>,
    /// Files larger than this are refused (after reading them to their end).
    pub refuse_over: Option<usize>,
}

impl Sink for RecordingSink {
    fn file(&mut self, file: FileIn<'_>) -> Result<FileStored, Stop> {
        let mut bytes = Vec::new();
        if file.bytes.read_to_end(&mut bytes).is_err() {
            return Ok(FileStored::Refused {
                reason: "unreadable".into(),
            });
        }
        if self.refuse_over.is_some_and(|max| bytes.len() > max) {
            return Ok(FileStored::Refused {
                reason: "too large".into(),
            });
        }
        let sha256 = hex::encode(Sha256::digest(&bytes));
        self.files.push(KeptFile {
            name: file.name.to_owned(),
            content_type: file.content_type.map(str::to_owned),
            bytes,
            sha256: sha256.clone(),
        });
        Ok(FileStored::Stored { sha256 })
    }

    fn note(&mut self, note: ForeignNote) -> Result<(), Stop> {
        self.notes.push(note);
        Ok(())
    }

    fn skipped(&mut self, name: &str, reason: SkipReason) -> Result<(), Stop> {
        self.skipped.push((name.to_owned(), reason));
        Ok(())
    }
}

impl RecordingSink {
    /// The note titled `title`; panics (naming the titles there are) if none is.
    pub fn note(&self, title: &str) -> &ForeignNote {
        self.notes
            .iter()
            .find(|n| n.title == title)
            .unwrap_or_else(|| {
                let titles: Vec<&str> = self.notes.iter().map(|n| n.title.as_str()).collect();
                panic!("no note titled {title:?} among {titles:?}")
            })
    }
}

/// `shared/data/imports/<kind>/<name>`, which must exist (the samples are not in the
/// repository).
pub(crate) fn sample(kind: &str, name: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/data/imports")
        .join(kind)
        .join(name);
    assert!(
        path.exists(),
        "the sample {} is missing: the tests read shared/data/imports beside the repository",
        path.display()
    );
    path
}

/// `bytes` cut at 20 places spread over their length (the fuzz-ish tests' inputs).
pub(crate) fn cuts(bytes: &[u8]) -> Vec<Vec<u8>> {
    (1..=20)
        .map(|i| bytes[..bytes.len() * i / 21].to_vec())
        .collect()
}
