//! The routes of files: `PUT /api/files/{sha256}`, `GET /files/{sha256}`, `GET /api/files`.

use axum::Router;
use axum::routing::{get, put};

use app::api::{FILES_API_PATH, FILES_PATH};

use super::{list, serve, upload};
use crate::http::routing::allow;
use crate::state::AppState;

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
