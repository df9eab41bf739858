//! The `NOTIFY` after a write's commit (see `changes`), sent by one task per store on a
//! connection of its own: the people whose feeds moved while the last notification was
//! being sent are told in one statement (`pg_notify` over `unnest`), each once. A write
//! never waits for it: its answer goes as soon as it committed. With one write at a time
//! each is told at once; with many, one statement serves them all, where each took its own
//! statement and a connection of the write pool.
//!
//! The connection is the announcer's alone, so a notification never waits behind a write
//! that waits for a lock. It commits without waiting for the disk (`synchronous_commit`
//! off): a notification is not kept across a crash anyway, and a transaction that
//! notifies holds a lock every notifier in the cluster shares until its commit is done.
//! A statement that fails is sent again (with everyone who moved meanwhile) a second
//! later. A notification lost all the same (the process killed before it was sent) costs
//! a stream one poll interval, never a change: the streams' backstop poll finds it.

use std::collections::BTreeSet;
use std::time::Duration;

use sqlx::Executor;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use tokio::sync::mpsc;

use super::changes::FEED_CHANNEL;

/// The announcer's connection as `pg_stat_activity` shows it.
const ANNOUNCER_NAME: &str = "oncenote-announcer";

/// How long the announcer waits before sending again after the database failed.
const RETRY: Duration = Duration::from_secs(1);

/// Hands the people whose feeds moved to the store's announcing task.
#[derive(Clone)]
pub(super) struct Announcer {
    moved: mpsc::UnboundedSender<String>,
    connection: PgPool,
}

impl Announcer {
    /// Starts the task that tells every replica's listener, through a connection of its
    /// own to the database of `options`: made when first needed, waited for at most
    /// `connect_timeout` per send, committing without waiting for the disk. The task ends
    /// when the last clone of the announcer goes (with the store), or at
    /// [`close`](Self::close).
    pub(super) fn spawn(options: &PgConnectOptions, connect_timeout: Duration) -> Self {
        let connection = PgPoolOptions::new()
            .max_connections(1)
            .acquire_timeout(connect_timeout)
            .after_connect(|connection, _| {
                Box::pin(async move {
                    connection.execute("SET synchronous_commit = off").await?;
                    Ok(())
                })
            })
            .connect_lazy_with(options.clone().application_name(ANNOUNCER_NAME));
        let (moved, waiting) = mpsc::unbounded_channel();
        tokio::spawn(announce(connection.clone(), waiting));
        Self { moved, connection }
    }

    /// Closes the connection; the task ends with it.
    pub(super) async fn close(&self) {
        self.connection.close().await;
    }

    /// `scope`'s feed moved (a write that changed their notes committed).
    pub(super) fn feed_moved(&self, scope: &str) {
        // The task is gone only when the store is: nobody is left to tell.
        let _ = self.moved.send(scope.to_owned());
    }
}

/// Sends the people waiting, all that arrived while the last statement ran, together.
async fn announce(connection: PgPool, mut waiting: mpsc::UnboundedReceiver<String>) {
    let mut scopes = BTreeSet::new();
    loop {
        if scopes.is_empty() {
            match waiting.recv().await {
                Some(scope) => scopes.insert(scope),
                None => return,
            };
        }
        while let Ok(more) = waiting.try_recv() {
            scopes.insert(more);
        }
        let people: Vec<String> = scopes.iter().cloned().collect();
        let sent = sqlx::query("SELECT pg_notify($1, scope) FROM unnest($2::text[]) AS scope")
            .bind(FEED_CHANNEL)
            .bind(&people)
            .execute(&connection)
            .await;
        match sent {
            Ok(_) => scopes.clear(),
            // The store was closed: nobody is left to send for.
            Err(_) if connection.is_closed() => return,
            Err(error) => {
                tracing::warn!(%error, people = scopes.len(), "could not announce changes; sending again in a second (the poll finds them meanwhile)");
                tokio::time::sleep(RETRY).await;
            }
        }
    }
}
