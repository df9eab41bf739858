//! One `LISTEN` connection per server process: every write's `NOTIFY` (sent after its
//! commit by the writing process's announcer, carrying only the person's id) becomes a
//! [`Moved`] signal for this process's streams, whichever replica made the write. (The
//! writing process's own streams were woken at the commit already; hearing its own
//! notification wakes them once more, which costs a read, never a change.)
//!
//! A listener can miss notifications while its connection is down (sqlx's own reconnect
//! gives no sign of what it missed), so this one reconnects itself and, once listening
//! again, raises [`Moved::Everyone`]: every stream reads its feed from its cursor once
//! more. The hub's slow poll of every person's head stays the last backstop.

use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgListener, PgPoolOptions};
use tokio::sync::watch;

use super::changes::{FEED_CHANNEL, SESSIONS_ENDED};
use crate::storage::feed::{FeedSignal, Moved};

/// The listener's connection names itself, so an operator (or a test) can find it in
/// `pg_stat_activity`.
pub const LISTENER_NAME: &str = "oncenote-listener";

/// How long to wait before connecting again after the listener's connection failed: at
/// first briefly, then doubling up to [`RECONNECT_AT_MOST`].
const RECONNECT_AFTER: Duration = Duration::from_millis(250);
const RECONNECT_AT_MOST: Duration = Duration::from_secs(10);

/// Listens until `stop` says so (or is dropped with the store).
pub fn spawn(options: &PgConnectOptions, signal: FeedSignal, mut stop: watch::Receiver<bool>) {
    let pool = PgPoolOptions::new()
        .max_connections(1)
        .connect_lazy_with(options.clone().application_name(LISTENER_NAME));
    tokio::spawn(async move {
        let mut wait = RECONNECT_AFTER;
        loop {
            tokio::select! {
                listened = listen(&pool, &signal) => match listened {
                    Listened::Lost => wait = RECONNECT_AFTER,
                    Listened::NotConnected => wait = (wait * 2).min(RECONNECT_AT_MOST),
                    Listened::DatabaseGone => break,
                },
                _ = stop.changed() => break,
            }
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                _ = stop.changed() => break,
            }
        }
        pool.close().await;
    });
}

/// How a listening ended.
enum Listened {
    /// It listened, then lost its connection.
    Lost,
    /// It could not connect (the database restarts, the network is down).
    NotConnected,
    /// The database no longer exists (dropped): nothing left to listen to.
    DatabaseGone,
}

/// Listens until the connection fails.
async fn listen(pool: &sqlx::PgPool, signal: &FeedSignal) -> Listened {
    let failed = |error: sqlx::Error| {
        let gone = error
            .as_database_error()
            .and_then(|e| e.code())
            .is_some_and(|code| code == "3D000");
        tracing::debug!(%error, "the feed's listener could not listen");
        if gone {
            Listened::DatabaseGone
        } else {
            Listened::NotConnected
        }
    };
    let mut listener = match PgListener::connect_with(pool).await {
        Ok(listener) => listener,
        Err(error) => return failed(error),
    };
    if let Err(error) = listener.listen(FEED_CHANNEL).await {
        return failed(error);
    }
    // Whatever was written while this process was not listening is read again now.
    signal.raise(Moved::Everyone);
    loop {
        match listener.try_recv().await {
            Ok(Some(notification)) => {
                let payload = notification.payload();
                signal.raise(match payload.strip_prefix(SESSIONS_ENDED) {
                    Some(scope) => Moved::Sessions(scope.to_owned()),
                    None => Moved::Person(payload.to_owned()),
                });
            }
            Ok(None) | Err(_) => {
                tracing::info!("the feed's listener lost its connection; listening again");
                return Listened::Lost;
            }
        }
    }
}
