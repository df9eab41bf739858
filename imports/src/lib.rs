//! Reading what other notes apps export into notes oncenote can make.
//!
//! An export (already on local disk: the server spools the upload first) is told apart by
//! its content ([`detect`]), then read ([`read`]) one note at a time into a [`Sink`]:
//! every file a note shows is handed to the sink *before* that note, and the sink answers
//! with the file's address (its SHA-256), which the note's Markdown then points at
//! (`/files/<sha256>`). Nothing here touches a database or holds the whole export: each
//! reader bounds what it unpacks ([`Limits`]) and keeps at most one note (and the table of
//! what it needs to find that note's files) in memory.
//!
//! Each kind has its own file, named after the app: [`keep`], [`enex`] (Evernote),
//! [`standard_notes`], [`joplin`] and [`markdown_vault`] (Obsidian or any folder).

mod archive;
mod attachments;
mod budgeted;
mod bundle;
mod code_spans;
mod data_url;
pub mod detect;
pub mod enex;
mod front_matter;
mod html_markdown;
mod html_table;
pub mod joplin;
mod joplin_item;
mod joplin_links;
mod json_prefix;
pub mod keep;
pub mod markdown_vault;
mod names;
mod spool;
pub mod standard_notes;
mod tarball;
#[cfg(test)]
mod test_sink;
#[cfg(test)]
mod test_support;
mod vault;
mod vault_links;
mod when;

use std::io::{self, Read};
use std::path::Path;

use chrono::{DateTime, Utc};

pub use budgeted::{Budget, Budgeted};
pub use detect::detect;

/// The kinds of export this crate reads, and oncenote's own (which the server reads).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A zip made by oncenote's `GET /api/export` (read by the server, not here).
    Oncenote,
    /// A Google Takeout zip holding `Keep/*.json` (and the attachments beside them).
    Keep,
    /// An Evernote `.enex` (XML).
    Evernote,
    /// A Standard Notes decrypted backup: its JSON, or the zip that holds it.
    StandardNotes,
    /// A Joplin export: a `.jex` (tar) or a zip of its RAW export or sync folder.
    Joplin,
    /// A zip of Markdown files: an Obsidian vault or any folder.
    Markdown,
}

impl Kind {
    /// The name the import report and the docs use.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Oncenote => "oncenote",
            Kind::Keep => "keep",
            Kind::Evernote => "evernote",
            Kind::StandardNotes => "standard_notes",
            Kind::Joplin => "joplin",
            Kind::Markdown => "markdown",
        }
    }
}

/// One note as the other app had it, its text already Markdown.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ForeignNote {
    /// What names the note inside its export, the same each time the same export is read
    /// (a Keep file name, a Standard Notes or Joplin id, a path in a vault, an ENEX note's
    /// place and creation time). The server derives the note's idempotency key from it, so
    /// importing the same export twice makes each note once.
    pub source_id: String,
    /// How the person would recognise the note in a report: its title, else its file name.
    pub name: String,
    /// The title, as plain text; empty when the other app had none (the server then uses
    /// `name`).
    pub title: String,
    /// The text as Markdown: checklists as task items (`- [ ]` / `- [x]`), images as
    /// `![name](/files/<sha256>)`, other files as `[name](/files/<sha256>)`.
    pub body: String,
    /// When the note was made in the other app, if it says.
    pub created_at: Option<DateTime<Utc>>,
    /// When it was last changed there, if it says.
    pub updated_at: Option<DateTime<Utc>>,
    /// Its labels, tags, notebooks and folders, named as the other app named them (nested
    /// levels joined with `/`); the server maps names a tag cannot hold.
    pub tags: Vec<String>,
    pub pinned: bool,
    /// Archived in the other app (the server tags it `archived`).
    pub archived: bool,
}

/// A file an export holds, handed to the sink as a stream of its bytes.
pub struct FileIn<'a> {
    /// Its name in the export (a file name, an attachment's name), for the note's link
    /// text and the report.
    pub name: &'a str,
    /// Its type as the export declares it, if it does.
    pub content_type: Option<&'a str>,
    /// The bytes, read to their end by the sink (or until it refuses them).
    pub bytes: &'a mut dyn Read,
}

/// What the sink did with a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileStored {
    /// Kept (or kept already): the note points at `/files/<sha256>`.
    Stored { sha256: String },
    /// Not kept (too large, say): the note keeps the file's name as text, and the reason
    /// goes to the report.
    Refused { reason: String },
}

/// Why a note of the export is not imported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// In the other app's trash (never imported: oncenote's trash empties itself).
    Trashed,
    /// Deleted in the other app (a tombstone in a backup).
    Deleted,
    /// End-to-end encrypted in the other app: the export holds no text to import.
    Encrypted,
}

impl SkipReason {
    /// How the report says it.
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::Trashed => "in the other app's trash",
            SkipReason::Deleted => "deleted in the other app",
            SkipReason::Encrypted => "end-to-end encrypted in the other app; export it decrypted",
        }
    }
}

/// The sink wants the reading to stop (the request went away, the quota is full, the
/// database failed): it keeps why, and [`read`] returns [`ReadError::Stopped`].
#[derive(Debug)]
pub struct Stop;

/// Where the notes and files of an export go, in order.
pub trait Sink {
    /// Keeps a file, reading `file.bytes` to its end.
    fn file(&mut self, file: FileIn<'_>) -> Result<FileStored, Stop>;
    /// Imports a note (every file it shows was handed to [`Sink::file`] before).
    fn note(&mut self, note: ForeignNote) -> Result<(), Stop>;
    /// Counts a note that is not imported, and why.
    fn skipped(&mut self, name: &str, reason: SkipReason) -> Result<(), Stop>;
}

/// Bounds on what one export may make the reader unpack or hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes one note's text may unpack to (a Markdown file, a Keep JSON, an ENEX
    /// note's content, a Standard Notes item).
    pub note_bytes: u64,
    /// The most entries an archive may list.
    pub entries: usize,
    /// The most notes one export may hold.
    pub notes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            note_bytes: 4 * 1024 * 1024,
            entries: 40_000,
            notes: 10_000,
        }
    }
}

/// Why an export could not be read (to its end).
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The sink asked to stop; it knows why.
    #[error("the import was stopped")]
    Stopped,
    /// Not what its kind should be (broken XML, JSON of another shape, an encrypted
    /// backup): said in words a person can act on.
    #[error("{0}")]
    Malformed(String),
    /// Past one of the [`Limits`] (or a file past the largest the sink takes).
    #[error("{0}")]
    TooLarge(String),
    #[error("reading the export: {0}")]
    Io(#[from] io::Error),
}

impl From<Stop> for ReadError {
    fn from(_: Stop) -> Self {
        ReadError::Stopped
    }
}

/// Reads the export at `path`, of the kind [`detect`] found, into `sink`.
pub fn read(
    kind: Kind,
    path: &Path,
    sink: &mut dyn Sink,
    limits: &Limits,
) -> Result<(), ReadError> {
    match kind {
        Kind::Oncenote => Err(ReadError::Malformed(
            "an oncenote export is read by the server's own import".into(),
        )),
        Kind::Keep => keep::read(path, sink, limits),
        Kind::Evernote => enex::read(path, sink, limits),
        Kind::StandardNotes => standard_notes::read(path, sink, limits),
        Kind::Joplin => joplin::read(path, sink, limits),
        Kind::Markdown => markdown_vault::read(path, sink, limits),
    }
}

/// How a note's Markdown shows a file it holds: an image inline, anything else as a link
/// (the server's sanitizer shows images only from `/files/…`).
pub fn file_markdown(name: &str, sha256: &str, content_type: Option<&str>) -> String {
    let text: String = name
        .chars()
        .map(|c| {
            if matches!(c, '[' | ']' | '\\' | '`' | '\n' | '\r') {
                ' '
            } else {
                c
            }
        })
        .collect();
    let is_image = content_type
        .is_some_and(|t| matches!(t, "image/png" | "image/jpeg" | "image/gif" | "image/webp"));
    if is_image {
        format!("![{text}](/files/{sha256})")
    } else {
        format!("[{text}](/files/{sha256})")
    }
}
