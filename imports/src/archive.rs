//! Zip archives read without trusting them: at most [`Limits::entries`] entries, every
//! text read to at most a given size *after* decompression (a zip entry can unpack to a
//! thousand times its size), and files handed over as streams, never whole.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use zip::ZipArchive;

use crate::{Limits, ReadError};

/// An open zip.
pub(crate) struct Archive {
    zip: ZipArchive<BufReader<File>>,
}

impl Archive {
    /// Opens the zip at `path`, refusing one that lists more entries than `limits` allow.
    pub fn open(path: &Path, limits: &Limits) -> Result<Self, ReadError> {
        let file = BufReader::new(File::open(path)?);
        let zip = ZipArchive::new(file)
            .map_err(|e| ReadError::Malformed(format!("not a zip that can be read: {e}")))?;
        if zip.len() > limits.entries {
            return Err(ReadError::TooLarge(format!(
                "the archive lists {} entries; at most {} are read",
                zip.len(),
                limits.entries
            )));
        }
        Ok(Self { zip })
    }

    /// The names of the entries that are files (not folders), in the archive's order.
    pub fn file_names(&self) -> Vec<String> {
        self.zip
            .file_names()
            .filter(|name| !name.ends_with('/'))
            .map(str::to_owned)
            .collect()
    }

    /// The entry `name` as text, at most `max` bytes of it once unpacked (more is
    /// [`ReadError::TooLarge`]); bytes that are not UTF-8 are replaced.
    pub fn read_text(&mut self, name: &str, max: u64) -> Result<String, ReadError> {
        let entry = self.zip.by_name(name).map_err(|e| missing(name, e))?;
        let mut bytes = Vec::new();
        entry.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > max {
            return Err(ReadError::TooLarge(format!(
                "{name} unpacks to more than {max} bytes"
            )));
        }
        Ok(match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        })
    }

    /// The first (at most) `max` bytes of the entry `name` once unpacked: enough to tell
    /// what it is without unpacking it all.
    pub fn read_start(&mut self, name: &str, max: u64) -> Result<Vec<u8>, ReadError> {
        let entry = self.zip.by_name(name).map_err(|e| missing(name, e))?;
        let mut bytes = Vec::new();
        entry.take(max).read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    /// The entry `name` as a stream of its unpacked bytes (the reader bounds how much it
    /// takes), and when it was last changed, as the archive says.
    pub fn open_entry(
        &mut self,
        name: &str,
    ) -> Result<(impl Read + '_, Option<chrono::NaiveDateTime>), ReadError> {
        let entry = self.zip.by_name(name).map_err(|e| missing(name, e))?;
        let modified = entry.last_modified().and_then(|t| {
            chrono::NaiveDate::from_ymd_opt(t.year().into(), t.month().into(), t.day().into())
                .and_then(|d| d.and_hms_opt(t.hour().into(), t.minute().into(), t.second().into()))
        });
        Ok((entry, modified))
    }
}

fn missing(name: &str, error: zip::result::ZipError) -> ReadError {
    ReadError::Malformed(format!(
        "the archive's entry {name} cannot be read: {error}"
    ))
}
