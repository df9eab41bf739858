//! The `NOTIFY` after a write's commit (see `changes`), sent by one task per store on a
//! connection of its own: the people whose feeds moved while the last notification was
//! being sent, or within [`SEND_GAP`] of the last statement, are told in one statement
//! (`pg_notify` over `unnest`), each once. A write never waits for it: its answer goes as
//! soon as it committed. After a quiet spell a write is told at once; under a stream of
//! writes one statement per gap serves them all, where each took its own statement and a
//! connection of the write pool. At a graceful shutdown what is held is sent at once.
//!
//! The connection is the announcer's alone, so a notification never waits behind a write
//! that waits for a lock. It commits without waiting for the disk (`synchronous_commit`
//! off): a notification is not kept across a crash anyway, and a transaction that
//! notifies holds a lock every notifier in the cluster shares until its commit is done.
//! A statement that fails is sent again (with everyone who moved meanwhile) a second
//! later. A notification lost all the same (the process killed before it was sent) costs
//! a stream one poll interval, never a change: the streams' backstop poll finds it.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use sqlx::Executor;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use super::changes::FEED_CHANNEL;

/// The announcer's connection as `pg_stat_activity` shows it.
const ANNOUNCER_NAME: &str = "oncenote-announcer";

/// How long the announcer waits before sending again after the database failed.
const RETRY: Duration = Duration::from_secs(1);

/// The least time between two statements: under a steady stream of writes, the people who
/// moved in this time go in one statement (each statement costs the database and this
/// process more than the people in it). The first write after a quiet spell is sent at
/// once; other replicas' streams hear of a write at most this much later. (This process's
/// own streams are woken at the commit, without waiting for the notification.)
const SEND_GAP: Duration = Duration::from_millis(25);

/// Hands the people whose feeds moved to the store's announcing task.
#[derive(Clone)]
pub(super) struct Announcer {
    moved: mpsc::UnboundedSender<String>,
    connection: PgPool,
    /// Set at [`close`](Self::close): the task sends what it holds at once, then ends.
    closing: Arc<watch::Sender<bool>>,
    /// Closed when the task ends (its sender is the task's).
    ended: watch::Receiver<()>,
    /// Ends the task if it has not ended by itself within `connect_timeout` of the close.
    task: tokio::task::AbortHandle,
    connect_timeout: Duration,
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
        let (closing, closing_seen) = watch::channel(false);
        let (ending, ended) = watch::channel(());
        let sending = connection.clone();
        let task = tokio::spawn(async move {
            announce(sending, waiting, closing_seen).await;
            drop(ending);
        })
        .abort_handle();
        Self {
            moved,
            connection,
            closing: Arc::new(closing),
            ended,
            task,
            connect_timeout,
        }
    }

    /// Sends what the task holds at once (the last writes before a shutdown reach the
    /// other replicas' streams), waits for it at most `connect_timeout`, then ends the
    /// task and closes the connection.
    pub(super) async fn close(&self) {
        let _ = self.closing.send(true);
        let mut ended = self.ended.clone();
        // `changed` fails once the task has ended and dropped its sender.
        let _ = tokio::time::timeout(self.connect_timeout, async {
            while ended.changed().await.is_ok() {}
        })
        .await;
        // A statement stuck on a half-open connection would hold the connection the
        // pool's close waits for.
        self.task.abort();
        self.connection.close().await;
    }

    /// `scope`'s feed moved (a write that changed their notes committed).
    pub(super) fn feed_moved(&self, scope: &str) {
        // The task is gone only when the store is: nobody is left to tell.
        let _ = self.moved.send(scope.to_owned());
    }
}

/// Sends the people waiting, all that arrived while the last statement ran or within
/// [`SEND_GAP`] of it, together; at closing, what it holds at once, then ends.
async fn announce(
    connection: PgPool,
    mut waiting: mpsc::UnboundedReceiver<String>,
    mut closing: watch::Receiver<bool>,
) {
    let mut scopes = BTreeSet::new();
    let mut last_sent: Option<Instant> = None;
    loop {
        // The sender gone is a close too: nobody is left to wait for.
        let closed = *closing.borrow() || closing.has_changed().is_err();
        if scopes.is_empty() && !closed {
            tokio::select! {
                more = waiting.recv() => match more {
                    Some(scope) => {
                        scopes.insert(scope);
                    }
                    None => return,
                },
                _ = closing.changed() => {}
            }
        }
        let closed = *closing.borrow() || closing.has_changed().is_err();
        if let Some(sent) = last_sent
            && !closed
        {
            tokio::select! {
                () = tokio::time::sleep_until(sent + SEND_GAP) => {}
                _ = closing.changed() => {}
            }
        }
        while let Ok(more) = waiting.try_recv() {
            scopes.insert(more);
        }
        let closed = *closing.borrow() || closing.has_changed().is_err();
        if scopes.is_empty() {
            if closed {
                return;
            }
            continue;
        }
        let people: Vec<String> = scopes.iter().cloned().collect();
        let sent = sqlx::query("SELECT pg_notify($1, scope) FROM unnest($2::text[]) AS scope")
            .bind(FEED_CHANNEL)
            .bind(&people)
            .execute(&connection)
            .await;
        last_sent = Some(Instant::now());
        match sent {
            Ok(_) => scopes.clear(),
            // The store is closing, or closed: nobody is left to send for.
            Err(_) if closed || connection.is_closed() => return,
            Err(error) => {
                tracing::warn!(%error, people = scopes.len(), "could not announce changes; sending again in a second (the poll finds them meanwhile)");
                tokio::select! {
                    () = tokio::time::sleep(RETRY) => {}
                    _ = closing.changed() => {}
                }
            }
        }
        if closed {
            return;
        }
    }
}
