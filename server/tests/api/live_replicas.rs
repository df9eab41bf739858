//! Live streams across replicas: a write through one server process reaches the streams
//! open on another (PostgreSQL: through `NOTIFY` and each process's one listener), and
//! after the listener loses its connection the streams catch up from the feed.

use std::time::{Duration, Instant};

use crate::helpers::spawn_app_with;
use crate::live_events::EventStream;
use crate::test_db::{Backend, backend};

const SOON: Duration = Duration::from_secs(5);

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_write_through_one_replica_reaches_the_streams_on_the_other() {
    // On SQLite two processes on one file learn of each other's writes by the poll alone.
    let a = spawn_app_with(|config| config.feed_poll = Duration::from_millis(200)).await;
    let b = a
        .replica_with(|config| config.feed_poll = Duration::from_millis(200))
        .await;
    let mut on_b = EventStream::open(&a.client, &b.address, None, None).await;
    let mut on_a = EventStream::open(&a.client, &a.address, None, None).await;
    for n in 0..5 {
        let started = Instant::now();
        let note = a.create(&format!("through a {n}"), "x").await;
        let seen = on_b.expect(SOON).await.change();
        assert_eq!(seen.note_id, note.id);
        let mine = on_a.expect(SOON).await.change();
        assert_eq!(mine.note_id, note.id);
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn after_the_listener_reconnects_the_streams_catch_up_from_the_feed() {
    if backend() != Backend::Postgres {
        return; // SQLite has no listener: one process wakes its own streams
    }
    // No poll to fall back on: only the listener (and its resync) can bring the changes.
    let hour = Duration::from_secs(3600);
    let a = spawn_app_with(|config| config.feed_poll = hour).await;
    let b = a.replica_with(|config| config.feed_poll = hour).await;
    let mut on_b = EventStream::open(&a.client, &b.address, None, None).await;
    let first = a.create("before", "x").await;
    assert_eq!(on_b.expect(SOON).await.change().note_id, first.id);
    // Every listener of this database loses its connection; the writes made meanwhile
    // send notifications nobody hears.
    let killed: Vec<bool> = sqlx::query_scalar(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE application_name = 'oncenote-listener' AND datname = current_database()",
    )
    .fetch_all(&a.pool)
    .await
    .unwrap();
    assert_eq!(killed.len(), 2, "one listener per process");
    let missed = a.create("while nobody listened", "y").await;
    let seen = on_b.expect(SOON).await.change();
    assert_eq!(
        seen.note_id, missed.id,
        "the stream caught up once its listener was back"
    );
    // And it listens again.
    let after = a.create("after", "z").await;
    assert_eq!(on_b.expect(SOON).await.change().note_id, after.id);
}
