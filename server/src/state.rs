//! What every handler can reach.

use std::sync::Arc;

use axum::extract::FromRef;
use leptos::config::LeptosOptions;

use crate::config::Config;
use crate::health::WriteHealth;
use crate::http::host::AllowedHosts;
use crate::idempotency::KeyGates;
use crate::offline::ShellBuild;
use crate::storage::Store;

#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    pub config: Arc<Config>,
    pub leptos_options: LeptosOptions,
    pub shell: Arc<ShellBuild>,
    pub key_gates: Arc<KeyGates>,
    /// Whether writes are being refused (a full disk), for `/healthz`.
    pub write_health: Arc<WriteHealth>,
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos_options.clone()
    }
}

impl FromRef<AppState> for AllowedHosts {
    fn from_ref(state: &AppState) -> Self {
        AllowedHosts::new(state.config.allowed_hosts.clone())
    }
}
