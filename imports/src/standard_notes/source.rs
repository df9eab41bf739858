//! Where a Standard Notes backup's JSON is: the uploaded file itself, or a member of the
//! zip the app makes (unpacked, bounded, into a temporary file beside the upload, so
//! that it can be read twice as a stream).

use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use crate::archive::Archive;
use crate::{Limits, ReadError};

/// The JSON member is unpacked to at most this many bytes (the 2022 sample's is 250 KB;
/// a backup of ten thousand long notes stays far below).
pub(super) const MAX_JSON_BYTES: u64 = 256 * 1024 * 1024;

/// The member's name in the zips Standard Notes makes.
const MEMBER_NAME: &str = "Standard Notes Backup and Import File.txt";

/// Members looked into, at most, when none has the usual name.
const MAX_PEEKS: usize = 64;

/// The backup's JSON, as a file that can be read from its start again.
pub(super) struct Json {
    file: File,
}

impl Json {
    /// Opens the backup at `path`: the JSON itself, or a zip that holds it.
    pub fn open(path: &Path, limits: &Limits) -> Result<Self, ReadError> {
        let mut file = File::open(path)?;
        let mut magic = [0u8; 4];
        let n = read_up_to(&mut file, &mut magic)?;
        if &magic[..n] != b"PK\x03\x04" {
            file.seek(SeekFrom::Start(0))?;
            return Ok(Self { file });
        }
        let mut archive = Archive::open(path, limits)?;
        let member = find_member(&mut archive)?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut spool = tempfile::tempfile_in(dir)?;
        let (entry, _) = archive.open_entry(&member)?;
        let copied = io::copy(&mut entry.take(MAX_JSON_BYTES + 1), &mut spool)?;
        if copied > MAX_JSON_BYTES {
            return Err(ReadError::TooLarge(format!(
                "the backup's {member} unpacks to more than {MAX_JSON_BYTES} bytes"
            )));
        }
        spool.seek(SeekFrom::Start(0))?;
        Ok(Self { file: spool })
    }

    /// The JSON from its start.
    pub fn reader(&mut self) -> io::Result<BufReader<&File>> {
        self.file.seek(SeekFrom::Start(0))?;
        Ok(BufReader::with_capacity(64 * 1024, &self.file))
    }
}

/// The zip's member that is the backup: the one with the usual name, else the first
/// whose text starts as the backup's JSON does.
fn find_member(archive: &mut Archive) -> Result<String, ReadError> {
    let names = archive.file_names();
    if let Some(name) = names.iter().find(|n| n.ends_with(MEMBER_NAME)) {
        return Ok(name.clone());
    }
    for name in names.iter().take(MAX_PEEKS) {
        let (entry, _) = archive.open_entry(name)?;
        let mut head = [0u8; 512];
        let n = read_up_to(&mut entry.take(512), &mut head)?;
        let head = String::from_utf8_lossy(&head[..n]);
        let trimmed = head.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
        if trimmed.starts_with('{') && (head.contains("\"items\"") || head.contains("\"version\""))
        {
            return Ok(name.clone());
        }
    }
    Err(ReadError::Malformed(format!(
        "the zip holds no Standard Notes backup (no {MEMBER_NAME}, and no member that is one)"
    )))
}

/// Reads until `buf` is full or the input ends; how many bytes came.
fn read_up_to(source: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        let n = source.read(&mut buf[filled..])?;
        if n == 0 {
            break;
        }
        filled += n;
    }
    Ok(filled)
}
