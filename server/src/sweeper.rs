//! The background task that deletes expired idempotency rows and sessions, and empties
//! the trash of notes kept there longer than the retention. A note keeps its key, so a retry after
//! expiry still finds its note (see `notes::writes`).

use std::time::Duration;

use tokio::task::JoinHandle;

use crate::storage::Store;
use crate::timestamp;

/// Sweeps every `interval` until the runtime stops.
pub fn spawn(store: Store, interval: Duration, trash_retention: Duration) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            let now = timestamp::now();
            let now_text = timestamp::format(now);
            match store.sweep_expired(&now_text).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(deleted = n, "swept expired idempotency keys"),
                // A busy database or a passing error: try again at the next tick.
                Err(error) => tracing::warn!(%error, "sweeping expired idempotency keys failed"),
            }
            match store.sweep_sessions(&now_text).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(deleted = n, "swept expired sessions"),
                Err(error) => tracing::warn!(%error, "sweeping expired sessions failed"),
            }
            let cutoff = timestamp::format(timestamp::before(now, trash_retention));
            match store.empty_trash_before(&cutoff, &now_text).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(
                    deleted = n,
                    "emptied notes kept in the trash past the retention"
                ),
                Err(error) => tracing::warn!(%error, "emptying the trash failed"),
            }
        }
    })
}
