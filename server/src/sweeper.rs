//! The background task that deletes expired idempotency rows, sessions and the buckets of
//! limits whose window and lock have passed, compacts old purges out of the change feed, empties
//! the trash of notes kept there longer than the retention, and deletes the files no note has
//! referred to for the grace period. A note keeps its key, so a retry after
//! expiry still finds its note (see `NoteWrites::earlier_write`).

use std::time::Duration;

use tokio::task::JoinHandle;

use crate::storage::Store;
use crate::timestamp;

/// Sweeps every `interval` until the runtime stops.
/// `limit_window` is how long a limit's bucket counts attempts (the sign-in window).
pub fn spawn(
    store: Store,
    interval: Duration,
    trash_retention: Duration,
    limit_window: Duration,
    tombstone_retention: Duration,
    file_grace: Duration,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            let now = timestamp::now();
            let now_text = timestamp::format(now);
            match store.sweeps().sweep_expired(&now_text).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(deleted = n, "swept expired idempotency keys"),
                // A busy database or a passing error: try again at the next tick.
                Err(error) => tracing::warn!(%error, "sweeping expired idempotency keys failed"),
            }
            match store.sweeps().sweep_sessions(&now_text).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(deleted = n, "swept expired sessions"),
                Err(error) => tracing::warn!(%error, "sweeping expired sessions failed"),
            }
            let window_start = timestamp::format(timestamp::before(now, limit_window));
            match store.sweeps().sweep_limits(&now_text, &window_start).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(deleted = n, "swept the counts of old attempts"),
                Err(error) => tracing::warn!(%error, "sweeping old attempt counts failed"),
            }
            let kept_since = timestamp::format(timestamp::before(now, tombstone_retention));
            match store.sweeps().sweep_tombstones(&kept_since).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(deleted = n, "swept old tombstones and their keys"),
                Err(error) => tracing::warn!(%error, "sweeping old tombstones failed"),
            }
            // A purge stays in the change feed as long as its tombstone: a device away
            // longer than that starts its offline copy over (410 `changes-expired`).
            match store.changes().compact_changes(&kept_since).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(deleted = n, "compacted old purges out of the change feed"),
                Err(error) => tracing::warn!(%error, "compacting the change feed failed"),
            }
            let cutoff = timestamp::format(timestamp::before(now, trash_retention));
            match store.sweeps().empty_trash_before(&cutoff, &now_text).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(
                    deleted = n,
                    "emptied notes kept in the trash past the retention"
                ),
                Err(error) => tracing::warn!(%error, "emptying the trash failed"),
            }
            // After the trash: a file whose last note was just emptied out of it lost its
            // reference now, and waits the grace period from now.
            let unseen_since = timestamp::format(timestamp::before(now, file_grace));
            match store.sweeps().sweep_files(&unseen_since).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(deleted = n, "swept files no note refers to"),
                Err(error) => tracing::warn!(%error, "sweeping unreferenced files failed"),
            }
        }
    })
}
