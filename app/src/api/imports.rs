//! Wire shapes of `POST /api/import`: the report of what an import made, and the lines of
//! progress a page asks for while it runs.

use serde::{Deserialize, Serialize};

use super::Problem;

/// The API path of imports.
pub const IMPORT_PATH: &str = "/api/import";
/// The `Accept` type under which `POST /api/import` answers with lines of progress
/// ([`ImportLine`], one JSON object a line) instead of one report at its end.
pub const IMPORT_PROGRESS_TYPE: &str = "application/x-ndjson";

/// The answer to `POST /api/import`: what became of each note of the export. A field
/// missing from the answer reads as none, so the client still reports what it can.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(default)]
pub struct ImportReport {
    /// What the file was: `oncenote`, `keep`, `evernote`, `standard_notes`, `joplin` or
    /// `markdown`.
    pub kind: String,
    /// Notes made by this import.
    pub imported: usize,
    /// Notes an earlier import of the same export had made already.
    pub already_there: usize,
    /// Notes left out on purpose: in the other app's trash, or deleted there.
    pub skipped: usize,
    /// The first of those (at most 100), each named, and why.
    pub skipped_notes: Vec<ImportProblem>,
    /// Notes (and files) that could not be made, each named, and why.
    pub failed: Vec<ImportProblem>,
    /// Files (images, attachments) this import stored.
    pub files: usize,
    /// The other app's tag names a tag cannot hold, each with the name it was given (the
    /// first 100, each cut to 80 characters).
    pub tags_renamed: Vec<TagMapping>,
}

/// A note (or file) of an export and what happened to it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ImportProblem {
    /// Its title or file name, cut to 80 characters.
    pub name: String,
    pub reason: String,
}

/// A tag name of the other app, and the name it has here.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct TagMapping {
    pub from: String,
    pub to: String,
}

/// How far an import has come.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(default)]
pub struct ImportProgress {
    /// Notes read so far (made, there already, skipped or failed).
    pub notes: usize,
    /// Files read so far.
    pub files: usize,
}

/// One line of an import's progress stream: some progress, then either the report or
/// the problem that ended it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ImportLine {
    Progress(ImportProgress),
    Report(ImportReport),
    Problem(Problem),
}
