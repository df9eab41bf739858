//! The notes routes as the document describes them (`notes::routes` serves them).
//!
//! A problem answer's description names its slugs in backticks: `problems::Problems`
//! turns them into the schema's `type` values (see `problems.rs`).

use app::api::{
    EditAnswer, NewNote, Note, NoteAnswer, NoteEdit, NotesPage, Problem, Revision, RevisionsPage,
};
use utoipa::openapi::schema::{AnyOfBuilder, Schema};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

/// What `PATCH /api/notes/{id}` answers: an edit's [`EditAnswer`], or a pin's
/// [`NoteAnswer`]. `anyOf`, not `oneOf`: an edit's answer has a `note` too.
pub struct PatchAnswer;

impl PartialSchema for PatchAnswer {
    fn schema() -> RefOr<Schema> {
        AnyOfBuilder::new()
            .item(Ref::from_schema_name(EditAnswer::name()))
            .item(Ref::from_schema_name(NoteAnswer::name()))
            .into()
    }
}

impl ToSchema for PatchAnswer {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((EditAnswer::name().into_owned(), EditAnswer::schema()));
        schemas.push((NoteAnswer::name().into_owned(), NoteAnswer::schema()));
        EditAnswer::schemas(schemas);
        NoteAnswer::schemas(schemas);
    }
}

/// `GET /api/notes`.
#[utoipa::path(
    get, path = "/api/notes", tag = "notes",
    summary = "List the notes outside the trash",
    description = "Pinned first, then newest first, a page at a time. With `tag`, the notes \
                   tagged with it or with a tag nested under it (`work` lists `work/meetings`).",
    params(
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 200, description = "Notes on a page, 1–200 (default 50)."),
        ("cursor" = Option<String>, Query, description = "The `next` of the page before."),
        ("tag" = Option<String>, Query, description = "Only notes with this tag (a leading `#` is dropped)."),
    ),
    responses(
        (status = 200, description = "A page of notes.", body = NotesPage),
        (status = 400, description = "`invalid-query`: a limit, cursor or tag that is not one.", body = Problem, content_type = "application/problem+json"),
    ),
    security(("session" = []), ("bearer" = []))
)]
pub fn list_notes() {}

/// `POST /api/notes`.
#[utoipa::path(
    post, path = "/api/notes", tag = "notes",
    summary = "Create a note, exactly once",
    description = "Retried with the same `Idempotency-Key`, the request is answered as the \
                   first time (`Idempotent-Replayed: true`) and nothing is made twice.",
    params(
        ("Idempotency-Key" = String, Header, pattern = "^[!#-~][!-~]{0,254}$", description = "1–255 visible ASCII characters, one per intended note (a UUID v4 fits)."),
        ("X-Oncenote-User" = Option<String>, Header, description = "The id of the person the write is for; another person signed in is 409."),
    ),
    request_body(content = NewNote, content_type = "application/json"),
    responses(
        (status = 201, description = "Made.", body = Note, headers(
            ("Location" = String, description = "The note's address."),
            ("ETag" = String, description = "The note's version, quoted."),
        )),
        (status = 200, description = "A late retry of a create that was done: the note as it is now.", body = Note),
        (status = 400, description = "`missing-idempotency-key`, `invalid-idempotency-key` or `invalid-json`.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`idempotency-key-in-use` (retry with the key) or `signed-in-as-someone-else`.", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "`deleted-elsewhere`: the note this key made was deleted for good since.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation-failed` (a title or body outside the bounds) or `idempotency-key-reused` (the key came with another request).", body = Problem, content_type = "application/problem+json"),
    ),
    security(("session" = []), ("bearer" = []))
)]
pub fn create_note() {}

/// `GET /api/notes/{id}`.
#[utoipa::path(
    get, path = "/api/notes/{id}", tag = "notes",
    summary = "Read a note, its body rendered as HTML",
    params(("id" = String, Path, description = "The note's id.")),
    responses(
        (status = 200, description = "The note, with `html`.", body = Note, headers(
            ("ETag" = String, description = "The note's version, quoted: send it back as `If-Match`."),
        )),
        (status = 404, description = "`not-found`: no note of this person has the id.", body = Problem, content_type = "application/problem+json"),
    ),
    security(("session" = []), ("bearer" = []))
)]
pub fn get_note() {}

/// `PATCH /api/notes/{id}`.
#[utoipa::path(
    patch, path = "/api/notes/{id}", tag = "notes",
    summary = "Edit a note's title or body (merged with edits made meanwhile), or pin it",
    description = "An edit says which version it starts from (`If-Match` or `base_version`). \
                   Edits in other lines since are merged; overlapping ones make a conflict copy. \
                   `pinned` is sent alone.",
    params(
        ("id" = String, Path, description = "The note's id."),
        ("Idempotency-Key" = String, Header, pattern = "^[!#-~][!-~]{0,254}$", description = "1–255 visible ASCII characters, one per intended edit."),
        ("If-Match" = Option<String>, Header, pattern = r#"^("[0-9]+"|\*)$"#, description = "The version the edit starts from, as the `ETag` gave it."),
        ("X-Oncenote-User" = Option<String>, Header, description = "The id of the person the write is for."),
    ),
    request_body(content = NoteEdit, content_type = "application/json"),
    responses(
        (status = 200, description = "Applied, merged or kept as a conflict copy (an edit); or pinned (`{note}`).", body = PatchAnswer, headers(
            ("ETag" = String, description = "The version of the note the answer is about."),
        )),
        (status = 400, description = "`missing-idempotency-key`, `invalid-idempotency-key` or `invalid-json`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not-found`: no note of this person has the id.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`idempotency-key-in-use` or `signed-in-as-someone-else`.", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "`deleted-elsewhere`: the note was deleted for good.", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "`precondition-failed`: the note is at another version; the answer holds it as current.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation-failed` or `idempotency-key-reused`.", body = Problem, content_type = "application/problem+json"),
        (status = 428, description = "`precondition-required`: an edit without `If-Match` or `base_version`.", body = Problem, content_type = "application/problem+json"),
    ),
    security(("session" = []), ("bearer" = []))
)]
pub fn edit_note() {}

/// `DELETE /api/notes/{id}`.
#[utoipa::path(
    delete, path = "/api/notes/{id}", tag = "notes",
    summary = "Move a note to the trash, or delete it for good",
    params(
        ("id" = String, Path, description = "The note's id."),
        ("permanent" = Option<bool>, Query, description = "`true`: delete for good (no way back)."),
        ("Idempotency-Key" = String, Header, pattern = "^[!#-~][!-~]{0,254}$", description = "1–255 visible ASCII characters."),
        ("If-Match" = Option<String>, Header, pattern = r#"^("[0-9]+"|\*)$"#, description = "Only if the note is at this version."),
        ("X-Oncenote-User" = Option<String>, Header, description = "The id of the person the write is for."),
    ),
    responses(
        (status = 200, description = "In the trash.", body = NoteAnswer),
        (status = 204, description = "Deleted for good."),
        (status = 400, description = "`missing-idempotency-key`, `invalid-idempotency-key` or `invalid-query`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not-found`.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`idempotency-key-in-use` or `signed-in-as-someone-else`.", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "`deleted-elsewhere`.", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "`precondition-failed`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`idempotency-key-reused`.", body = Problem, content_type = "application/problem+json"),
    ),
    security(("session" = []), ("bearer" = []))
)]
pub fn delete_note() {}

/// `POST /api/notes/{id}/restore`.
#[utoipa::path(
    post, path = "/api/notes/{id}/restore", tag = "notes",
    summary = "Bring a note back from the trash",
    params(
        ("id" = String, Path, description = "The note's id."),
        ("Idempotency-Key" = String, Header, pattern = "^[!#-~][!-~]{0,254}$", description = "1–255 visible ASCII characters."),
        ("If-Match" = Option<String>, Header, pattern = r#"^("[0-9]+"|\*)$"#, description = "Only if the note is at this version."),
        ("X-Oncenote-User" = Option<String>, Header, description = "The id of the person the write is for."),
    ),
    responses(
        (status = 200, description = "Out of the trash.", body = NoteAnswer),
        (status = 400, description = "`missing-idempotency-key` or `invalid-idempotency-key`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not-found`.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`idempotency-key-in-use` or `signed-in-as-someone-else`.", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "`deleted-elsewhere`.", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "`precondition-failed`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`idempotency-key-reused`.", body = Problem, content_type = "application/problem+json"),
    ),
    security(("session" = []), ("bearer" = []))
)]
pub fn restore_note() {}

/// `GET /api/notes/{id}/revisions`.
#[utoipa::path(
    get, path = "/api/notes/{id}/revisions", tag = "notes",
    summary = "A note's history, oldest first, a page at a time",
    description = "One item per accepted write, without its body (`GET \
                   /api/notes/{id}/revisions/{version}` has it). `next` is the cursor for the \
                   page after, null on the last.",
    params(
        ("id" = String, Path, description = "The note's id."),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 200, description = "Versions on a page, 1–200 (default 50)."),
        ("cursor" = Option<String>, Query, description = "The `next` of the page before (the last version it listed)."),
    ),
    responses(
        (status = 200, description = "A page of versions.", body = RevisionsPage),
        (status = 400, description = "`invalid-query`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not-found`.", body = Problem, content_type = "application/problem+json"),
    ),
    security(("session" = []), ("bearer" = []))
)]
pub fn list_revisions() {}

/// `GET /api/notes/{id}/revisions/{version}`.
#[utoipa::path(
    get, path = "/api/notes/{id}/revisions/{version}", tag = "notes",
    summary = "One version of a note, with its body",
    params(
        ("id" = String, Path, description = "The note's id."),
        ("version" = String, Path, description = "The version, a whole number from 1."),
    ),
    responses(
        (status = 200, description = "The version.", body = Revision),
        (status = 404, description = "`not-found`: no such note, or no such version of it.", body = Problem, content_type = "application/problem+json"),
    ),
    security(("session" = []), ("bearer" = []))
)]
pub fn get_revision() {}

/// `GET /api/trash`.
#[utoipa::path(
    get, path = "/api/trash", tag = "notes",
    summary = "List the notes in the trash, latest moved first",
    params(
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 200, description = "Notes on a page, 1–200 (default 50)."),
        ("cursor" = Option<String>, Query, description = "The `next` of the page before."),
    ),
    responses(
        (status = 200, description = "A page of notes.", body = NotesPage),
        (status = 400, description = "`invalid-query`.", body = Problem, content_type = "application/problem+json"),
    ),
    security(("session" = []), ("bearer" = []))
)]
pub fn list_trash() {}
