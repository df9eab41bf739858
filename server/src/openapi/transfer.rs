//! A person's notes taken away and brought back, as the document describes them
//! (`notes::transfer` serves them).

use app::api::{ImportLine, ImportReport, Problem};

use super::bytes::RawBytes;

/// `GET /api/export`.
#[utoipa::path(
    get, path = "/api/export", tag = "import and export",
    summary = "Every note (and file) of the person, as a zip",
    responses(
        (status = 200, description = "The zip: `notes.json`, a Markdown file per note, the files.", content_type = "application/zip", body = inline(RawBytes), headers(
            ("Content-Disposition" = String, description = "`attachment` with the file's name."),
        )),
        (status = 429, description = "`too-many-exports`: this person has an export being written or sent.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`exports-full`: the server writes as many exports as it allows.", body = Problem, content_type = "application/problem+json"),
        (status = 507, description = "`storage-full`: no room on the server's disk to write the export.", body = Problem, content_type = "application/problem+json"),
    ),
    security(("session" = []), ("bearer" = []))
)]
pub fn export() {}

/// `POST /api/import`.
#[utoipa::path(
    post, path = "/api/import", tag = "import and export",
    summary = "Make notes (and files) from an export, exactly once",
    description = "The same export imported twice adds nothing. With `Accept: \
                   application/x-ndjson` the answer is a stream of `ImportLine`s, one JSON \
                   object a line: progress, then the report or the problem that ended it.",
    request_body(content = inline(RawBytes), content_type = "*/*", description = "The export file's bytes."),
    responses(
        (status = 200, description = "What the import made.", content(
            (ImportReport = "application/json"),
            (ImportLine = "application/x-ndjson"),
        )),
        (status = 400, description = "`invalid-body`: not an export this server can read.", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "`payload-too-large` (the upload, or what it unpacks to) or `quota-exceeded` (its files past the person's room).", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "`unsupported-media-type`: a file of no kind this server imports.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation-failed`: an export whose contents are not as they say.", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`import-running`: an import of this person's is running.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`too-many-imports`: as many imports as the server runs at once are running.", body = Problem, content_type = "application/problem+json"),
    ),
    security(("session" = []), ("bearer" = []))
)]
pub fn import() {}
