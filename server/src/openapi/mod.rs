//! `GET /api/openapi.json`: the OpenAPI 3.1 document of every `/api` route, made from the
//! code — the wire types' schemas derived in `app::api`, each route described in the file
//! of its area here (the handlers stay as they are), the problem answers made exact by
//! `problems`. Built once, then served from memory.

pub mod accounts;
pub mod bytes;
pub mod changes;
pub mod files;
pub mod notes;
pub mod problems;
pub mod search;
pub mod security;
pub mod tags;
pub mod tokens;
pub mod transfer;

use std::sync::OnceLock;

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use utoipa::OpenApi;

use security::Schemes;

use crate::http::routing::allow;
use crate::state::AppState;

/// Where the document is served.
pub const OPENAPI_PATH: &str = "/api/openapi.json";

#[derive(OpenApi)]
#[openapi(
    info(
        title = "oncenote",
        description = "The notes API. Every write is idempotent (`Idempotency-Key`); every error \
                       is an RFC 9457 problem (`application/problem+json`) whose `type` ends in a \
                       stable slug. See PROTOCOL.md."
    ),
    paths(
        notes::list_notes, notes::create_note, notes::get_note, notes::edit_note,
        notes::delete_note, notes::restore_note, notes::list_revisions, notes::get_revision,
        notes::list_trash,
        tags::list_tags, tags::rename_tag,
        search::search,
        changes::list_changes, changes::follow_events,
        files::list_files, files::put_file,
        transfer::export, transfer::import,
        accounts::sign_in, accounts::sign_out, accounts::me, accounts::change_password,
        accounts::complete_setup, accounts::invite, accounts::accept_invitation,
        accounts::sign_up, accounts::list_users, accounts::disable_user, accounts::enable_user,
        tokens::list_tokens, tokens::make_token, tokens::revoke_token,
        openapi_json,
    ),
    components(schemas(app::api::Problem, app::api::ChangeEvent, app::api::ImportLine)),
    modifiers(&Schemes),
)]
struct ApiDoc;

/// The document as JSON, built on first use: every request after reads the same bytes.
pub fn document() -> Bytes {
    static DOCUMENT: OnceLock<Bytes> = OnceLock::new();
    DOCUMENT
        .get_or_init(|| {
            let mut value = serde_json::to_value(ApiDoc::openapi()).unwrap_or_default();
            problems::annotate(&mut value);
            changes::describe_events(&mut value);
            Bytes::from(serde_json::to_vec(&value).unwrap_or_default())
        })
        .clone()
}

/// The route of the document (public: no sign-in).
pub fn router() -> Router<AppState> {
    Router::new().route(OPENAPI_PATH, allow(get(serve), "GET"))
}

/// `GET /api/openapi.json`.
#[utoipa::path(
    get, path = "/api/openapi.json", tag = "meta",
    summary = "This document",
    responses((status = 200, description = "The OpenAPI 3.1 document.", content_type = "application/json", body = Object))
)]
pub fn openapi_json() {}

async fn serve() -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        document(),
    )
        .into_response()
}
