//! The background task that deletes expired idempotency rows. A note keeps its key, so
//! a retry after expiry still finds its note (see `notes::writes`).

use std::time::Duration;

use tokio::task::JoinHandle;

use crate::storage::Store;
use crate::timestamp;

/// Sweeps every `interval` until the runtime stops.
pub fn spawn(store: Store, interval: Duration) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            let now = timestamp::format(timestamp::now());
            match store.sweep_expired(&now).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(deleted = n, "swept expired idempotency keys"),
                // A busy database or a passing error: try again at the next tick.
                Err(error) => tracing::warn!(%error, "sweeping expired idempotency keys failed"),
            }
        }
    })
}
