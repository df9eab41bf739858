//! What every handler can reach. A handler that needs one part takes that part
//! (`State<Store>`, `State<Arc<ShellBuild>>`, …; `FromRef` is derived for each field), so
//! the modules that define the parts need not know `AppState`.

use std::sync::Arc;

use axum::extract::FromRef;
use leptos::config::LeptosOptions;

use crate::config::Config;
use crate::files::uploads::Uploads;
use crate::health::WriteHealth;
use crate::idempotency::{KeyGates, Pipeline, Rules};
use crate::live::Hub;
use crate::offline::ShellBuild;
use crate::storage::Store;

/// The server's state, shared by every request.
#[derive(Clone, FromRef)]
pub struct AppState {
    pub store: Store,
    pub config: Arc<Config>,
    pub leptos_options: LeptosOptions,
    pub shell: Arc<ShellBuild>,
    pub key_gates: Arc<KeyGates>,
    /// Whether writes are being refused (a full disk), for `/healthz`.
    pub write_health: Arc<WriteHealth>,
    /// The live streams open in this process.
    pub live: Arc<Hub>,
    /// The uploads running in this process, and where they wait (`files`).
    pub uploads: Arc<Uploads>,
}

impl AppState {
    /// What a write's idempotency pipeline works with.
    pub fn pipeline(&self) -> Pipeline<'_> {
        Pipeline {
            store: &self.store,
            rules: Rules {
                gates: &self.key_gates,
                key_wait: self.config.key_wait,
                key_ttl: self.config.idempotency_ttl,
                health: &self.write_health,
            },
        }
    }
}
