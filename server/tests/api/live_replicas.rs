//! Live streams across replicas: a write through one server process reaches the streams
//! open on another (PostgreSQL: through `NOTIFY` and each process's one listener), and
//! after the listener loses its connection the streams catch up from the feed.

use std::time::{Duration, Instant};

use crate::helpers::spawn_app_with;
use crate::live_events::EventStream;
use crate::test_db::{Backend, backend};

const SOON: Duration = Duration::from_secs(5);

/// The backstop poll: on SQLite (two processes on one file learn of each other's writes
/// by it alone) a short one; on PostgreSQL none within the test, so only the `NOTIFY`s
/// can bring a write to the other replica's streams.
fn poll_only_on_sqlite() -> Duration {
    match backend() {
        Backend::Sqlite => Duration::from_millis(200),
        Backend::Postgres => Duration::from_secs(3600),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_write_through_one_replica_reaches_the_streams_on_the_other() {
    // On SQLite two processes on one file learn of each other's writes by the poll alone;
    // on PostgreSQL there is no poll here: the NOTIFY after each commit must do it.
    let poll = poll_only_on_sqlite();
    let a = spawn_app_with(|config| config.feed_poll = poll).await;
    let b = a.replica_with(|config| config.feed_poll = poll).await;
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
async fn writes_of_several_people_at_once_reach_each_persons_streams_on_the_other_replica() {
    // The notifications of writes that commit together are sent together (one statement
    // for everyone whose feed moved): each person must still be told, and no poll here
    // would find a write the announcement left out.
    let poll = poll_only_on_sqlite();
    let a = spawn_app_with(|config| config.feed_poll = poll).await;
    let b = a.replica_with(|config| config.feed_poll = poll).await;
    let mut people = Vec::new();
    for n in 0..6 {
        let client = a.new_user(&format!("writer{n}")).await;
        let stream = EventStream::open(&client, &b.address, None, None).await;
        people.push((client, stream));
    }
    let url = a.url("/api/notes");
    for round in 0..3 {
        // Each person writes twice at once, everyone at the same moment.
        let writes = people.iter().flat_map(|(client, _)| {
            let url = &url;
            (0..2).map(move |n| {
                let (client, url) = (client.clone(), url.clone());
                async move {
                    let response = client
                        .post(url)
                        .header("Idempotency-Key", uuid::Uuid::new_v4().to_string())
                        .json(&crate::helpers::note_json(&format!(
                            "round {round} write {n}"
                        )))
                        .send()
                        .await
                        .expect("the server answers");
                    assert_eq!(response.status(), 201);
                    response.json::<app::api::Note>().await.expect("a note").id
                }
            })
        });
        let mut made = futures::future::join_all(writes).await.into_iter();
        for (_, stream) in &mut people {
            let mut expected: Vec<String> = made.by_ref().take(2).collect();
            let mut seen = vec![
                stream.expect(SOON).await.change().note_id,
                stream.expect(SOON).await.change().note_id,
            ];
            expected.sort();
            seen.sort();
            assert_eq!(
                seen, expected,
                "each person's own two notes, on the other replica"
            );
        }
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

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_last_writes_before_a_graceful_shutdown_still_reach_the_other_replicas_streams() {
    if backend() != Backend::Postgres {
        return; // SQLite has no announcer: another process finds the writes by its poll
    }
    // No poll to fall back on: only A's notifications can bring its writes to B.
    let hour = Duration::from_secs(3600);
    let mut a = spawn_app_with(|config| config.feed_poll = hour).await;
    let b = a.replica_with(|config| config.feed_poll = hour).await;
    let mut on_b = EventStream::open(&a.client, &b.address, None, None).await;
    // Four writers save notes one after another until the server stops taking them; the
    // shutdown starts while they write, so the last commits come just before the store
    // closes (inside the announcer's gap between two statements).
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let (client, url) = (a.client.clone(), a.url("/api/notes"));
            tokio::spawn(async move {
                let mut made = Vec::new();
                loop {
                    let n = made.len();
                    let sent = client
                        .post(&url)
                        .header("Idempotency-Key", uuid::Uuid::new_v4().to_string())
                        .json(&crate::helpers::note_json(&format!("writer {w} note {n}")))
                        .send()
                        .await;
                    match sent {
                        Ok(answer) if answer.status() == 201 => {
                            made.push(answer.json::<app::api::Note>().await.unwrap().id)
                        }
                        _ => return made,
                    }
                }
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(300)).await;
    a.shut_down(Duration::from_secs(60))
        .await
        .expect("replica A stopped");
    let mut made = std::collections::BTreeSet::new();
    for writer in writers {
        made.extend(writer.await.unwrap());
    }
    assert!(made.len() >= 4, "{} notes made", made.len());
    let mut seen = std::collections::BTreeSet::new();
    while seen.len() < made.len() {
        seen.insert(on_b.expect(SOON).await.change().note_id);
    }
    assert_eq!(seen, made);
}
