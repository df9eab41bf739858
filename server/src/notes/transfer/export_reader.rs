//! Reading an uploaded export without trusting it. An upload is at most 64 MiB, but a zip
//! entry can unpack to a thousand times its size and a zip can list an entry in 46 bytes,
//! so what is read from it is bounded on its own:
//!
//! - the archive lists at most [`MAX_ENTRIES`] entries (and its directory is read within a
//!   byte budget, so a forged directory cannot make the zip reader hold a million);
//! - `notes.json` is read as a stream, at most [`MAX_INFLATED_BYTES`] of it (413 past that);
//!   no string in it may be longer than any field of a valid note can be, so a note is
//!   never more than about a megabyte in memory, whatever the file holds;
//! - the notes are handed over one at a time, and there are at most [`MAX_NOTES`];
//! - `files.json` is read within [`MAX_FILES_JSON_BYTES`] and lists at most [`MAX_FILES`];
//!   each `files/<sha256>` is read as it unpacks, never past the largest file the server
//!   takes (413), and must hash to its name (422) — before anything is imported.

use std::io::{self, BufReader, Read, Seek};

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use app::api::{FileInfo, MAX_REQUEST_BYTES, Note, is_file_name};
use imports::Budgeted;
use sha2::{Digest, Sha256};

use crate::error::ApiError;

/// The most notes one import takes: far above one person's notes as we expect them, and
/// an import of that many takes about ten seconds.
pub const MAX_NOTES: usize = 10_000;
/// The most bytes `notes.json` may unpack to: twice the largest upload, about what a 64 MiB
/// export of ordinary text holds (it holds every note twice, as JSON and as Markdown).
pub const MAX_INFLATED_BYTES: u64 = 128 * 1024 * 1024;
/// The most files one import takes (a person with more exports them, and imports, in
/// vain: far above what the quota lets one person keep in images of notes).
pub const MAX_FILES: usize = 10_000;
/// The most bytes `files.json` may unpack to: about 200 bytes a file.
const MAX_FILES_JSON_BYTES: u64 = 4 * 1024 * 1024;
/// The most entries an archive may list: `notes.json`, a Markdown file per note,
/// `files.json`, a file per file, and room for folder entries.
pub const MAX_ENTRIES: usize = 2 * MAX_NOTES + MAX_FILES + 16;
/// The most bytes the zip reader may read to find and list the entries: an export's
/// directory takes at most ~250 bytes per entry (a file name of 40 characters of any
/// script), so [`MAX_ENTRIES`] of ours fit with room to spare.
const DIRECTORY_BUDGET: u64 = 8 * 1024 * 1024;
/// The longest string `notes.json` may hold: the largest request body, which fits the
/// longest title or body of a note in any JSON encoding.
const MAX_TEXT_BYTES: u64 = MAX_REQUEST_BYTES as u64;
/// What `notes.json` says it is.
pub const FORMAT: &str = "oncenote-export";
/// The list of the export's files (absent from exports made before files were).
pub const FILES_JSON: &str = "files.json";
/// The folder of the files' bytes, each under its name.
pub const FILES_DIR: &str = "files";

/// Reads the export's notes and counts them, keeping none: the check made before anything
/// is imported. Fails as an import would (413 too large, 422 not an export we can take).
pub fn count_notes(zip: impl Read + Seek) -> Result<usize, ApiError> {
    let mut count = 0;
    each_note(zip, |_| {
        count += 1;
        if count > MAX_NOTES {
            return Err(ApiError::ValidationFailed(format!(
                "this export holds more than {} notes, the most one import takes",
                app::api::grouped(MAX_NOTES)
            )));
        }
        Ok(())
    })?;
    Ok(count)
}

/// Hands every note of the export to `each`, in order, one at a time. A refusal from
/// `each` stops the reading and is the answer.
pub fn each_note(
    zip: impl Read + Seek,
    mut each: impl FnMut(Note) -> Result<(), ApiError>,
) -> Result<(), ApiError> {
    let mut archive = open(zip)?;
    let entry = archive
        .by_name("notes.json")
        .map_err(|e| not_an_export(&format!("notes.json cannot be read: {e}")))?;
    let mut guarded = Guarded::new(entry);
    let mut stopped = None;
    let read = {
        let mut json = serde_json::Deserializer::from_reader(BufReader::new(&mut guarded));
        ExportSeed {
            each: &mut each,
            stopped: &mut stopped,
        }
        .deserialize(&mut json)
        .and_then(|()| json.end())
    };
    match (read, guarded.tripped, stopped) {
        (Ok(()), _, _) => Ok(()),
        (Err(_), Some(Tripped::TooLarge), _) => Err(ApiError::UnpacksTooLarge(format!(
            "notes.json unpacks to more than {} bytes, the most an import reads",
            app::api::grouped(MAX_INFLATED_BYTES as usize)
        ))),
        (Err(_), Some(Tripped::TextTooLong), _) => Err(not_an_export(&format!(
            "notes.json holds a text of more than {} bytes, longer than any note can be",
            app::api::grouped(MAX_TEXT_BYTES as usize)
        ))),
        (Err(_), None, Some(refusal)) => Err(refusal),
        (Err(error), None, None) => Err(not_an_export(&format!("notes.json: {error}"))),
    }
}

/// The files the export holds, as `files.json` lists them, each checked: its name is a
/// file's name, its entry is there, unpacks to at most `max_file_bytes` and hashes to its
/// name. The sizes are the ones counted. Fails as an import would (413, 422).
pub fn exported_files(
    zip: impl Read + Seek,
    max_file_bytes: u64,
) -> Result<Vec<FileInfo>, ApiError> {
    let mut archive = open(zip)?;
    let mut listed = listed_in(&mut archive)?;
    for file in &mut listed {
        file.size = unpack_file(&mut archive, &file.sha256, max_file_bytes, &mut io::sink())?;
    }
    Ok(listed)
}

/// The files `files.json` lists, their names checked but nothing unpacked: the sizes are
/// the ones the export declares, for a cheap check against the quota before the work of
/// unpacking and hashing every file ([`exported_files`] counts them).
pub fn declared_files(zip: impl Read + Seek) -> Result<Vec<FileInfo>, ApiError> {
    listed_in(&mut open(zip)?)
}

fn listed_in<R: Read + Seek>(
    archive: &mut zip::ZipArchive<Budgeted<R>>,
) -> Result<Vec<FileInfo>, ApiError> {
    #[derive(serde::Deserialize)]
    struct Listed {
        files: Vec<FileInfo>,
    }
    let listed = match archive.by_name(FILES_JSON) {
        Err(zip::result::ZipError::FileNotFound) => return Ok(Vec::new()),
        Err(e) => return Err(not_an_export(&format!("files.json cannot be read: {e}"))),
        Ok(entry) => {
            let mut json = Vec::new();
            entry
                .take(MAX_FILES_JSON_BYTES + 1)
                .read_to_end(&mut json)
                .map_err(|e| not_an_export(&format!("files.json: {e}")))?;
            if json.len() as u64 > MAX_FILES_JSON_BYTES {
                return Err(ApiError::UnpacksTooLarge(format!(
                    "files.json unpacks to more than {} bytes, the most an import reads",
                    app::api::grouped(MAX_FILES_JSON_BYTES as usize)
                )));
            }
            serde_json::from_slice::<Listed>(&json)
                .map_err(|e| not_an_export(&format!("files.json: {e}")))?
                .files
        }
    };
    if listed.len() > MAX_FILES {
        return Err(ApiError::ValidationFailed(format!(
            "this export holds more than {} files, the most one import takes",
            app::api::grouped(MAX_FILES)
        )));
    }
    let mut seen = std::collections::HashSet::new();
    for file in &listed {
        if !is_file_name(&file.sha256) || !seen.insert(file.sha256.clone()) {
            return Err(not_an_export(&format!(
                "files.json names {:?}, which is not the name of a file or is there twice",
                cut(&file.sha256, 80)
            )));
        }
    }
    Ok(listed)
}

/// An export opened to unpack its files, its directory read once.
pub struct ExportFiles<R>(zip::ZipArchive<Budgeted<R>>);

impl<R: Read + Seek> ExportFiles<R> {
    pub fn open(zip: R) -> Result<Self, ApiError> {
        Ok(Self(open(zip)?))
    }

    /// Unpacks the file `sha256` into `into`, checking it as [`exported_files`] does.
    /// Returns its size.
    pub fn extract(
        &mut self,
        sha256: &str,
        max_file_bytes: u64,
        into: &mut impl io::Write,
    ) -> Result<u64, ApiError> {
        unpack_file(&mut self.0, sha256, max_file_bytes, into)
    }
}

fn unpack_file<R: Read + Seek>(
    archive: &mut zip::ZipArchive<Budgeted<R>>,
    sha256: &str,
    max_file_bytes: u64,
    into: &mut impl io::Write,
) -> Result<u64, ApiError> {
    let name = format!("{FILES_DIR}/{sha256}");
    let entry = archive.by_name(&name).map_err(|e| {
        not_an_export(&format!(
            "files.json lists {name}, which cannot be read: {e}"
        ))
    })?;
    let mut bytes = entry.take(max_file_bytes + 1);
    let mut hasher = Sha256::new();
    let mut size: u64 = 0;
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let n = bytes
            .read(&mut buffer)
            .map_err(|e| not_an_export(&format!("{name}: {e}")))?;
        if n == 0 {
            break;
        }
        size += n as u64;
        if size > max_file_bytes {
            return Err(ApiError::UnpacksTooLarge(format!(
                "{name} unpacks to more than {} bytes, the largest file this server takes",
                app::api::grouped(usize::try_from(max_file_bytes).unwrap_or(usize::MAX))
            )));
        }
        hasher.update(&buffer[..n]);
        into.write_all(&buffer[..n]).map_err(|e| {
            if e.kind() == io::ErrorKind::StorageFull {
                ApiError::StorageFull
            } else {
                ApiError::Internal(anyhow::Error::new(e).context("unpacking an imported file"))
            }
        })?;
    }
    let actual = hex::encode(hasher.finalize());
    if actual != sha256 {
        return Err(ApiError::ValidationFailed(format!(
            "this export's {name} does not hash to its name (its SHA-256 is {actual}): \
             the export was changed or damaged"
        )));
    }
    Ok(size)
}

/// A refusal of what the archive holds; `why` is cut, as it may quote the file.
fn not_an_export(why: &str) -> ApiError {
    ApiError::ValidationFailed(format!(
        "this is not an oncenote export we can import: {}",
        cut(why, 200)
    ))
}

/// At most `max` characters of `text`, with an ellipsis when it was longer.
pub fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// The archive, its entries listed within [`DIRECTORY_BUDGET`] and counted.
fn open<R: Read + Seek>(zip: R) -> Result<zip::ZipArchive<Budgeted<R>>, ApiError> {
    let (reader, budget) = Budgeted::new(zip, DIRECTORY_BUDGET);
    let too_many = || {
        ApiError::ValidationFailed(format!(
            "this archive lists more entries than an export of {} notes has ({} at most)",
            app::api::grouped(MAX_NOTES),
            app::api::grouped(MAX_ENTRIES)
        ))
    };
    let archive = zip::ZipArchive::new(reader).map_err(|e| {
        if budget.spent() {
            too_many()
        } else {
            ApiError::InvalidBody(format!(
                "this is not an oncenote export: the body is not a zip archive ({})",
                cut(&e.to_string(), 200)
            ))
        }
    })?;
    if archive.len() > MAX_ENTRIES {
        return Err(too_many());
    }
    // Listed: reading the one entry is bounded by the guard on what it unpacks to.
    budget.lift();
    Ok(archive)
}

/// Why the guard stopped the reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tripped {
    TooLarge,
    TextTooLong,
}

/// `notes.json` as it unpacks, stopped past [`MAX_INFLATED_BYTES`] in all or past
/// [`MAX_TEXT_BYTES`] inside one JSON string — before the JSON reader buffers it.
struct Guarded<R> {
    inner: R,
    read: u64,
    in_string: bool,
    escaped: bool,
    text: u64,
    tripped: Option<Tripped>,
}

impl<R> Guarded<R> {
    fn new(inner: R) -> Self {
        Self {
            inner,
            read: 0,
            in_string: false,
            escaped: false,
            text: 0,
            tripped: None,
        }
    }

    /// Follows strings through `bytes`; true if one is too long.
    fn text_too_long(&mut self, bytes: &[u8]) -> bool {
        for &byte in bytes {
            if !self.in_string {
                if byte == b'"' {
                    self.in_string = true;
                    self.text = 0;
                }
                continue;
            }
            if self.escaped {
                self.escaped = false;
            } else if byte == b'\\' {
                self.escaped = true;
            } else if byte == b'"' {
                self.in_string = false;
                continue;
            }
            self.text += 1;
            if self.text > MAX_TEXT_BYTES {
                return true;
            }
        }
        false
    }
}

impl<R: Read> Read for Guarded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(tripped) = self.tripped {
            return Err(io::Error::other(format!("{tripped:?}")));
        }
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if self.read > MAX_INFLATED_BYTES {
            self.tripped = Some(Tripped::TooLarge);
        } else if self.text_too_long(&buf[..n]) {
            self.tripped = Some(Tripped::TextTooLong);
        }
        match self.tripped {
            Some(tripped) => Err(io::Error::other(format!("{tripped:?}"))),
            None => Ok(n),
        }
    }
}

/// The top of `notes.json`: `format` must be ours; `notes` is read one note at a time.
struct ExportSeed<'a, F> {
    each: &'a mut F,
    stopped: &'a mut Option<ApiError>,
}

impl<'de, F: FnMut(Note) -> Result<(), ApiError>> DeserializeSeed<'de> for ExportSeed<'_, F> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de, F: FnMut(Note) -> Result<(), ApiError>> Visitor<'de> for ExportSeed<'_, F> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object with format and notes")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let (mut format, mut notes) = (false, false);
        while let Some(field) = map.next_key::<String>()? {
            match field.as_str() {
                "format" => {
                    let value: String = map.next_value()?;
                    if value != FORMAT {
                        return Err(de::Error::custom(format!(
                            "its format is {:?}",
                            cut(&value, 40)
                        )));
                    }
                    format = true;
                }
                "notes" => {
                    map.next_value_seed(NotesSeed {
                        each: &mut *self.each,
                        stopped: &mut *self.stopped,
                    })?;
                    notes = true;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        match (format, notes) {
            (true, true) => Ok(()),
            (false, _) => Err(de::Error::missing_field("format")),
            (_, false) => Err(de::Error::missing_field("notes")),
        }
    }
}

/// The `notes` array, each note handed over as soon as it is read.
struct NotesSeed<'a, F> {
    each: &'a mut F,
    stopped: &'a mut Option<ApiError>,
}

impl<'de, F: FnMut(Note) -> Result<(), ApiError>> DeserializeSeed<'de> for NotesSeed<'_, F> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, F: FnMut(Note) -> Result<(), ApiError>> Visitor<'de> for NotesSeed<'_, F> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list of notes")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(note) = seq.next_element::<Note>()? {
            if let Err(refusal) = (self.each)(note) {
                *self.stopped = Some(refusal);
                return Err(de::Error::custom("the reading was stopped"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::*;

    #[test]
    fn a_cut_text_keeps_its_first_characters_and_an_ellipsis() {
        assert_eq!(cut("Crème brûlée", 5), "Crème…");
        assert_eq!(cut("short", 5), "short");
        assert_eq!(app::api::grouped(10_000), "10,000");
        assert_eq!(app::api::grouped(134_217_728), "134,217,728");
        assert_eq!(app::api::grouped(999), "999");
    }

    #[test]
    fn an_export_of_as_many_notes_as_an_import_takes_with_the_longest_file_names_is_taken() {
        // A title of 200 four-byte letters: every Markdown file's name is as long as any.
        let title = "\u{1D400}".repeat(200);
        let notes = (0..MAX_NOTES)
            .map(|n| Note {
                id: format!("00000000-0000-4000-8000-{n:012}"),
                title: title.clone(),
                body: "body text".into(),
                written_at: "2026-11-30T05:00:00.000Z".into(),
                created_at: "2026-11-30T05:00:00.000Z".into(),
                updated_at: "2026-11-30T05:00:00.000Z".into(),
                version: 1,
                trashed_at: (n % 2 == 0).then(|| "2026-11-30T06:00:00.000Z".into()),
                conflict_of: None,
                tags: Vec::new(),
                pinned: false,
                html: None,
            })
            .collect();
        let zip = super::super::export::zip_of(notes);
        assert_eq!(count_notes(Cursor::new(&zip)).unwrap(), MAX_NOTES);
    }

    #[test]
    fn an_archive_whose_directory_is_past_the_budget_is_refused_for_its_entries() {
        use std::io::Write;
        // 200,000 empty entries: a directory of about 10 MB, read no further than 8 MiB.
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let stored = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        zip.start_file("notes.json", stored).unwrap();
        zip.write_all(br#"{"format":"oncenote-export","notes":[]}"#)
            .unwrap();
        for n in 0..200_000 {
            zip.start_file(format!("{n}"), stored).unwrap();
        }
        let zip = zip.finish().unwrap().into_inner();
        match count_notes(Cursor::new(&zip)) {
            Err(ApiError::ValidationFailed(why)) => assert!(why.contains("entries"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_guard_follows_strings_through_escaped_quotes() {
        let mut guard = Guarded::new(std::io::empty());
        assert!(!guard.text_too_long(b"{\"a\":\"x\\\"y\",\"b\":\""));
        assert!(guard.in_string);
        assert_eq!(guard.text, 0);
        assert!(!guard.text_too_long(br#"1\\"}"#));
        assert!(!guard.in_string);
    }
}
