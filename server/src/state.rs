//! What every handler can reach.

use std::sync::Arc;

use axum::extract::FromRef;
use leptos::config::LeptosOptions;
use sqlx::SqlitePool;

use crate::config::Config;
use crate::idempotency::KeyGates;
use crate::offline::ShellBuild;

#[derive(Clone)]
pub struct AppState {
    pub pool: SqlitePool,
    pub config: Arc<Config>,
    pub leptos_options: LeptosOptions,
    pub shell: Arc<ShellBuild>,
    pub key_gates: Arc<KeyGates>,
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos_options.clone()
    }
}
