//! Files in notes (PROTOCOL.md, "Files"; docs/PROTOCOL.md, "Files" says what we chose):
//! the HTTP side of uploading, serving and listing them. Where the bytes live, and why,
//! is `storage::files`.
//!
//! - `PUT /api/files/{sha256}` (`upload`): the bytes, stored once.
//! - `GET /files/{sha256}` (`serve`): the bytes, to their owner, safely.
//! - `GET /api/files` (`list`): the person's files and their room.
//!
//! One concern per file: `spool` (where an upload waits, removed on every path), `limits`
//! (uploads at once), `sniff` (what a file is, by its bytes), `range` (`Range` requests).

pub mod limits;
pub mod list;
pub mod range;
pub mod serve;
pub mod sniff;
pub mod spool;
pub mod upload;

use std::sync::Arc;

use anyhow::Context;
use axum::Router;
use axum::routing::{get, put};

use app::api::{FILES_API_PATH, FILES_PATH};

use crate::config::Config;
use crate::http::routing::allow;
use crate::state::AppState;

/// What uploads share in a process: their places, and their spool.
#[derive(Debug)]
pub struct Uploads {
    pub limits: Arc<limits::UploadLimits>,
    pub spool: spool::Spool,
}

impl Uploads {
    /// The limits and the spool the configuration names (the spool's folder made, and
    /// emptied of what killed processes left).
    pub fn open(config: &Config) -> anyhow::Result<Self> {
        let spool = spool::Spool::open(&config.spool_dir).with_context(|| {
            format!(
                "could not make the upload folder {} (ONCENOTE_SPOOL_DIR)",
                config.spool_dir.display()
            )
        })?;
        Ok(Self {
            limits: limits::UploadLimits::new(config.uploads_per_person, config.uploads_max),
            spool,
        })
    }
}

pub fn router() -> Router<AppState> {
    Router::new()
        .route(FILES_API_PATH, allow(get(list::list_files), "GET"))
        .route(
            &format!("{FILES_API_PATH}/{{sha256}}"),
            allow(put(upload::put_file), "PUT"),
        )
        .route(
            &format!("{FILES_PATH}/{{sha256}}"),
            allow(get(serve::get_file), "GET, HEAD"),
        )
}
