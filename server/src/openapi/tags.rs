//! The tag routes as the document describes them (`tags::routes` serves them).

use app::api::{Problem, TagList, TagRename, TagRenamed};

/// `GET /api/tags`.
#[utoipa::path(
    get, path = "/api/tags", tag = "tags",
    summary = "Every tag of the notes outside the trash, by name, with counts",
    responses((status = 200, description = "The tags.", body = TagList)),
    security(("session" = []), ("bearer" = []))
)]
pub fn list_tags() {}

/// `POST /api/tags/rename`.
#[utoipa::path(
    post, path = "/api/tags/rename", tag = "tags",
    summary = "Rename a tag in every note that has it (and the tags nested under it)",
    params(
        ("Idempotency-Key" = String, Header, pattern = "^[!#-~][!-~]{0,254}$", description = "1–255 visible ASCII characters."),
        ("X-Oncenote-User" = Option<String>, Header, description = "The id of the person the write is for."),
    ),
    request_body(content = TagRename, content_type = "application/json"),
    responses(
        (status = 200, description = "How many notes changed.", body = TagRenamed),
        (status = 400, description = "`missing-idempotency-key`, `invalid-idempotency-key` or `invalid-json`.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`idempotency-key-in-use` or `signed-in-as-someone-else`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation-failed` (a name that is not a tag), `rename-too-large` (more text than one rename rewrites; nothing renamed) or `idempotency-key-reused`.", body = Problem, content_type = "application/problem+json"),
    ),
    security(("session" = []), ("bearer" = []))
)]
pub fn rename_tag() {}
