//! A person's notes taken away and brought back:
//!
//! - `GET /api/export` (`export`): a zip with every note, as JSON and as Markdown;
//! - `POST /api/import` (`import`): such a zip (`own_export`, reading it with
//!   `export_reader`, which bounds what it unpacks) or another app's export (`foreign`)
//!   made into notes through the ordinary idempotent create.

pub mod export;
pub mod export_reader;
pub mod foreign;
pub mod import;
pub mod own_export;

use axum::Router;
use axum::routing::{get, post};

use crate::http::routing::allow;
use crate::state::AppState;

/// The export and import routes.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/export", allow(get(export::download), "GET"))
        .route("/api/import", allow(post(import::upload), "POST"))
}
