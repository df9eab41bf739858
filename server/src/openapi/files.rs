//! The files API as the document describes it (`files::routes` serves it). The bytes
//! themselves are served at `/files/{sha256}`, outside `/api`.

use app::api::{FileAnswer, FileList, Problem};

use super::bytes::RawBytes;

/// `GET /api/files`.
#[utoipa::path(
    get, path = "/api/files", tag = "files",
    summary = "The person's files, newest first, a page at a time, and their room for files",
    description = "`used_bytes` counts each file as at least 4 KiB; `file_count` is every \
                   file, on every page. `next` is the cursor for the page after, null on the last.",
    params(
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 200, description = "Files on a page, 1–200 (default 50)."),
        ("cursor" = Option<String>, Query, description = "The `next` of the page before."),
    ),
    responses(
        (status = 200, description = "A page of files.", body = FileList),
        (status = 400, description = "`invalid-query`.", body = Problem, content_type = "application/problem+json"),
    ),
    security(("session" = []), ("bearer" = []))
)]
pub fn list_files() {}

/// `PUT /api/files/{sha256}`.
#[utoipa::path(
    put, path = "/api/files/{sha256}", tag = "files",
    summary = "Store a file under the SHA-256 of its bytes, exactly once",
    description = "The name is the key: a file stored already is answered 200 without its \
                   body being read. The declared `Content-Type` is kept and served back.",
    params(("sha256" = String, Path, description = "The SHA-256 of the bytes, 64 lower-case hex digits.")),
    request_body(content = inline(RawBytes), content_type = "*/*", description = "The file's bytes, of any type."),
    responses(
        (status = 201, description = "Stored.", body = FileAnswer),
        (status = 200, description = "Stored already.", body = FileAnswer),
        (status = 404, description = "`not-found`: the name is not 64 lower-case hex digits.", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "`payload-too-large` (past the largest file) or `quota-exceeded` (past the person's room).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`hash-mismatch`: the bytes hash to another name; nothing stored.", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too-many-uploads`: this person has as many uploads running as allowed.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`uploads-full`: the server runs as many uploads as it allows.", body = Problem, content_type = "application/problem+json"),
    ),
    security(("session" = []), ("bearer" = []))
)]
pub fn put_file() {}
