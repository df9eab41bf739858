//! What every handler can reach.

use std::sync::Arc;

use axum::extract::FromRef;
use leptos::config::LeptosOptions;

use crate::config::Config;
use crate::health::WriteHealth;
use crate::http::host::AllowedHosts;
use crate::idempotency::{KeyGates, Pipeline};
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

impl AppState {
    /// What a write's idempotency pipeline works with.
    pub fn pipeline(&self) -> Pipeline<'_> {
        Pipeline {
            store: &self.store,
            gates: &self.key_gates,
            key_wait: self.config.key_wait,
            key_ttl: self.config.idempotency_ttl,
            health: &self.write_health,
        }
    }
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
