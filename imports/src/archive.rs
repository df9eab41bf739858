//! Zip archives read without trusting them: at most [`Limits::entries`] entries, every
//! text read to at most a given size *after* decompression (a zip entry can unpack to a
//! thousand times its size), and files handed over as streams, never whole.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use zip::ZipArchive;

use crate::budgeted::Budgeted;
use crate::{Limits, ReadError};

/// The most bytes the zip reader may read to list the entries: 400 bytes an entry at the
/// most entries (names of a hundred characters of any script, and their extra fields).
const DIRECTORY_BYTES_PER_ENTRY: u64 = 400;

/// An open zip.
pub(crate) struct Archive {
    zip: ZipArchive<Budgeted<BufReader<File>>>,
}

impl Archive {
    /// Opens the zip at `path`, refusing one that lists more entries than `limits` allow.
    pub fn open(path: &Path, limits: &Limits) -> Result<Self, ReadError> {
        let budget_bytes = DIRECTORY_BYTES_PER_ENTRY.saturating_mul(limits.entries as u64);
        let (file, budget) = Budgeted::new(BufReader::new(File::open(path)?), budget_bytes);
        let too_many = || {
            ReadError::TooLarge(format!(
                "the archive lists more entries than the {} an import reads",
                limits.entries
            ))
        };
        let zip = ZipArchive::new(file).map_err(|e| {
            if budget.spent() {
                too_many()
            } else {
                ReadError::Malformed(format!("not a zip that can be read: {e}"))
            }
        })?;
        budget.lift();
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

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn a_zip_listing_more_entries_than_allowed_is_refused_before_its_directory_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("many.zip");
        let mut zip = zip::ZipWriter::new(File::create(&path).unwrap());
        for n in 0..2_000 {
            zip.start_file(
                format!("{n:0>200}.md"),
                zip::write::SimpleFileOptions::default(),
            )
            .unwrap();
            zip.write_all(b"x").unwrap();
        }
        zip.finish().unwrap();
        let limits = Limits {
            entries: 100,
            ..Limits::default()
        };
        // The listing is cut at 400 bytes an entry: 40 KB of a directory of 2,000 names
        // of 200 characters (over 500 KB).
        assert!(matches!(
            Archive::open(&path, &limits),
            Err(ReadError::TooLarge(_))
        ));
        assert!(Archive::open(&path, &Limits::default()).is_ok());
    }
}
