//! The change feed and its live stream (PROTOCOL.md, "Changes and live updates"): every
//! write leaves one change per note in commit order, a reader racing the writers misses
//! nothing, a stream resumes after its last id with every later change once, and each
//! person sees only their own.

use std::collections::HashMap;
use std::time::Duration;

use app::api::{ChangeKind, ChangesPage, IDEMPOTENCY_KEY_HEADER};
use serde_json::json;

use crate::helpers::{TestApp, problem_of, spawn_app, spawn_app_with};
use crate::live_events::{EventStream, Next};

const AT: &str = "2026-12-01T06:00:00.000Z";
const SOON: Duration = Duration::from_secs(5);

async fn feed(app: &TestApp, since: i64, limit: u32) -> ChangesPage {
    let response = app
        .get(&format!("/api/changes?since={since}&limit={limit}"))
        .await;
    assert_eq!(response.status(), 200);
    response.json().await.expect("a page of changes")
}

/// Every change after `since`, page by page.
async fn whole_feed(app: &TestApp, mut since: i64, limit: u32) -> (Vec<app::api::Change>, i64) {
    let mut all = Vec::new();
    loop {
        let page = feed(app, since, limit).await;
        all.extend(page.changes);
        since = page.next;
        if !page.more {
            return (all, since);
        }
    }
}

#[tokio::test]
async fn every_kind_of_write_leaves_the_notes_newest_change_in_commit_order() {
    let app = spawn_app().await;
    let a = app.create("A", "first #work").await;
    let b = app.create("B", "second").await;
    let edit =
        json!({ "title": "A", "body": "first, edited #work", "base_version": 1, "written_at": AT });
    assert_eq!(
        app.patch_note(&a.id, "edit-a", &edit, &[]).await.status(),
        200
    );
    let pin = json!({ "pinned": true, "written_at": AT });
    assert_eq!(
        app.patch_note(&b.id, "pin-b", &pin, &[]).await.status(),
        200
    );
    assert_eq!(app.delete_note(&a.id, "trash-a", false).await.status(), 200);
    let (changes, next) = whole_feed(&app, 0, 200).await;
    // One change per note, the newest: A was trashed last, B pinned.
    assert_eq!(changes.len(), 2, "{changes:?}");
    assert!(changes.windows(2).all(|w| w[0].seq < w[1].seq));
    assert_eq!(next, changes.last().unwrap().seq);
    assert_eq!(changes[0].note_id, b.id);
    assert!(changes[0].note.as_ref().unwrap().pinned);
    assert_eq!(changes[1].note_id, a.id);
    let trashed = changes[1].note.as_ref().unwrap();
    assert!(trashed.trashed_at.is_some());
    assert_eq!(trashed.version, 3);
    assert!(
        trashed.html.as_deref().unwrap().contains("edited"),
        "notes carry their html"
    );

    // Restore, then delete for good: the feed says so, with no note.
    assert_eq!(app.restore_note(&a.id, "restore-a").await.status(), 200);
    let after_restore = feed(&app, next, 200).await;
    assert_eq!(after_restore.changes.len(), 1);
    assert!(
        after_restore.changes[0]
            .note
            .as_ref()
            .unwrap()
            .trashed_at
            .is_none()
    );
    assert_eq!(app.delete_note(&b.id, "purge-b", true).await.status(), 204);
    let after_purge = feed(&app, after_restore.next, 200).await;
    assert_eq!(after_purge.changes.len(), 1);
    assert_eq!(after_purge.changes[0].note_id, b.id);
    assert_eq!(after_purge.changes[0].kind, ChangeKind::Purge);
    assert!(after_purge.changes[0].note.is_none());

    // A rename is a change of each note it renamed.
    let c = app.create("C", "third #work").await;
    let before_rename = feed(&app, 0, 200).await.changes.last().unwrap().seq;
    let renamed = app
        .client
        .post(app.url("/api/tags/rename"))
        .header(IDEMPOTENCY_KEY_HEADER, "rename-work")
        .json(&json!({ "from": "work", "to": "job", "written_at": AT }))
        .send()
        .await
        .unwrap();
    assert_eq!(renamed.status(), 200);
    let renames = feed(&app, before_rename, 200).await.changes;
    let mut ids: Vec<&str> = renames.iter().map(|c| c.note_id.as_str()).collect();
    ids.sort_unstable();
    let mut expected = vec![a.id.as_str(), c.id.as_str()];
    expected.sort_unstable();
    assert_eq!(ids, expected);
    assert!(
        renames
            .iter()
            .all(|c| c.note.as_ref().unwrap().tags == ["job"])
    );

    // A retry of a write already done adds no change.
    let head = feed(&app, 0, 200).await.changes.last().unwrap().seq;
    assert_eq!(app.restore_note(&a.id, "restore-a").await.status(), 200);
    assert!(feed(&app, head, 200).await.changes.is_empty());
}

#[tokio::test]
async fn the_feed_pages_by_limit_and_says_when_more_follow() {
    let app = spawn_app().await;
    for n in 0..5 {
        app.create(&format!("note {n}"), "x").await;
    }
    let first = feed(&app, 0, 2).await;
    assert_eq!(first.changes.len(), 2);
    assert!(first.more);
    let (rest, end) = whole_feed(&app, first.next, 2).await;
    assert_eq!(rest.len(), 3);
    let empty = feed(&app, end, 2).await;
    assert!(empty.changes.is_empty() && !empty.more);
    assert_eq!(
        empty.next, end,
        "an empty page keeps the cursor where it was"
    );
    for bad in ["since=-1", "since=x", "limit=0", "limit=201"] {
        let response = app.get(&format!("/api/changes?{bad}")).await;
        assert_eq!(response.status(), 400, "{bad}");
    }
}

#[tokio::test]
async fn a_since_the_feed_no_longer_covers_is_410_changes_expired() {
    // Purges are compacted as soon as the sweeper runs.
    let app = spawn_app_with(|config| {
        config.tombstone_retention = Duration::from_millis(1);
        config.sweep_interval = Duration::from_millis(300);
    })
    .await;
    let note = app.create("Gone soon", "x").await;
    let _kept = app.create("Kept", "y").await;
    assert_eq!(app.delete_note(&note.id, "purge", true).await.status(), 204);
    // The purge was change 3; a device that stood at 1 may have missed it.
    let mut expired = None;
    for _ in 0..50 {
        let response = app.get("/api/changes?since=1").await;
        if response.status() == 410 {
            expired = Some(problem_of(response).await);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let problem = expired.expect("the purge was compacted and since=1 told to start over");
    assert_eq!(problem.kind, "/problems/changes-expired");
    // Starting over works: since=0 is every note as it stands.
    let full = feed(&app, 0, 200).await;
    let ids: Vec<&str> = full.changes.iter().map(|c| c.note_id.as_str()).collect();
    assert_eq!(
        ids,
        [_kept.id.as_str()],
        "the whole copy, without the compacted purge"
    );
    let response = EventStream::request(&app.client, &app.address, Some(1), None).await;
    assert_eq!(
        response.status(),
        410,
        "a stream that cannot resume is told so"
    );
    // Past the end: a client that holds more than this database has.
    let response = app.get("/api/changes?since=1000").await;
    assert_eq!(response.status(), 410);
    let response = EventStream::request(&app.client, &app.address, Some(1000), None).await;
    assert_eq!(
        response.status(),
        410,
        "a stream that cannot resume is told so"
    );
}

#[tokio::test]
async fn each_person_reads_only_their_own_feed_and_stream() {
    let app = spawn_app().await;
    let bob = app.new_user("bob").await;
    let mut bobs_stream = EventStream::open(&bob, &app.address, Some(0), None).await;
    app.create("Admin's", "private").await;
    let page: ChangesPage = bob
        .get(app.url("/api/changes?since=0"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(page.changes.is_empty(), "{page:?}");
    assert!(matches!(
        bobs_stream.next(Duration::from_millis(1500)).await,
        Next::Quiet
    ));
    let unsigned = crate::helpers::anonymous()
        .get(app.url("/api/changes?since=0"))
        .send()
        .await
        .unwrap();
    assert_eq!(unsigned.status(), 401);
    let unsigned =
        EventStream::request(&crate::helpers::anonymous(), &app.address, None, None).await;
    assert_eq!(unsigned.status(), 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_reader_paging_the_feed_while_writers_race_misses_no_change() {
    let app = std::sync::Arc::new(spawn_app().await);
    let writers = 16;
    let per_writer = 30;
    let done = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut tasks = Vec::new();
    for w in 0..writers {
        let (app, done) = (app.clone(), done.clone());
        tasks.push(tokio::spawn(async move {
            for n in 0..per_writer {
                app.create(&format!("w{w} n{n}"), "racing").await;
            }
            done.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }));
    }
    // Four readers page with a small limit from their own cursors, as devices do, while
    // the writers commit; each note is written once, so a change skipped is never
    // repaired by a later one. (With a plain sequence for seqs, taken before commit, this
    // fails: a reader passes a seq whose transaction commits after a later one.)
    let readers: Vec<_> = (0..4)
        .map(|_| {
            let (app, done) = (app.clone(), done.clone());
            tokio::spawn(async move {
                let mut seen: HashMap<String, i64> = HashMap::new();
                let (mut cursor, mut last_seq) = (0, 0);
                loop {
                    let finished = done.load(std::sync::atomic::Ordering::SeqCst) == writers;
                    let page = feed(&app, cursor, 3).await;
                    for change in &page.changes {
                        assert!(
                            change.seq > last_seq,
                            "seqs grow: {} after {last_seq}",
                            change.seq
                        );
                        last_seq = change.seq;
                        seen.insert(change.note_id.clone(), change.seq);
                    }
                    cursor = page.next;
                    if finished && !page.more {
                        return seen;
                    }
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    for reader in readers {
        let seen = reader.await.unwrap();
        assert_eq!(
            seen.len(),
            writers * per_writer,
            "every note reached every reader"
        );
    }
    assert_eq!(app.note_count().await, (writers * per_writer) as i64);
}

#[tokio::test]
async fn a_stream_sends_each_later_change_once_in_order_and_resumes_after_its_last_id() {
    let app = spawn_app().await;
    for n in 0..3 {
        app.create(&format!("before {n}"), "x").await;
    }
    let mut stream = EventStream::open(&app.client, &app.address, Some(0), None).await;
    assert_eq!(stream.seqs(3, SOON).await, [1, 2, 3]);
    let (event, note) = tokio::join!(stream.expect(SOON), app.create("live", "y"));
    let change = event.change();
    assert_eq!(
        (change.seq, change.note_id.as_str(), change.version),
        (4, note.id.as_str(), Some(1))
    );
    assert_eq!(event.id.as_deref(), Some("4"));
    drop(stream);
    // Written while this device was away.
    let away = app.create("away", "z").await;
    let edit = json!({ "title": "away", "body": "z2", "base_version": 1, "written_at": AT });
    assert_eq!(
        app.patch_note(&away.id, "edit-away", &edit, &[])
            .await
            .status(),
        200
    );
    let extra = app.create("extra", "w").await;
    // The browser reconnects with the last id it saw; the edit folded into the note's
    // newest change, so two changes follow 4, once each, in order.
    let mut resumed = EventStream::open(&app.client, &app.address, None, Some(4)).await;
    let a = resumed.expect(SOON).await.change();
    let b = resumed.expect(SOON).await.change();
    assert_eq!((a.note_id.as_str(), a.version), (away.id.as_str(), Some(2)));
    assert_eq!(
        (b.note_id.as_str(), b.version),
        (extra.id.as_str(), Some(1))
    );
    assert!(a.seq < b.seq);
    assert!(matches!(
        resumed.next(Duration::from_millis(500)).await,
        Next::Quiet
    ));
    // Without since or Last-Event-ID a stream starts now: nothing old is sent.
    let mut fresh = EventStream::open(&app.client, &app.address, None, None).await;
    assert!(matches!(
        fresh.next(Duration::from_millis(500)).await,
        Next::Quiet
    ));
}

#[tokio::test]
async fn a_stream_says_signed_out_and_closes_when_its_session_ends() {
    let app = spawn_app().await;
    // Sign-out.
    let bob = app.new_user("bob").await;
    let mut stream = EventStream::open(&bob, &app.address, None, None).await;
    let out = bob.delete(app.url("/api/session")).send().await.unwrap();
    assert_eq!(out.status(), 204);
    let event = stream.expect(SOON).await;
    assert_eq!(event.event, "signed-out");
    assert!(matches!(stream.next(SOON).await, Next::Ended));
    // An account disabled by an admin.
    let carol = app.new_user("carol").await;
    let me: app::api::Me = carol
        .get(app.url("/api/me"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut stream = EventStream::open(&carol, &app.address, None, None).await;
    let disabled = app
        .client
        .post(app.url(&format!("/api/users/{}/disable", me.user_id)))
        .send()
        .await
        .unwrap();
    assert_eq!(disabled.status(), 204);
    assert_eq!(stream.expect(SOON).await.event, "signed-out");
    assert!(matches!(stream.next(SOON).await, Next::Ended));
}

#[tokio::test]
async fn a_stream_ends_after_the_configured_lifetime_with_what_it_sent_and_resumes_from_its_id() {
    let app = spawn_app_with(|config| config.stream_lifetime = Duration::from_secs(2)).await;
    let mut stream = EventStream::open(&app.client, &app.address, Some(0), None).await;
    app.create("Before the end", "x").await;
    let sent = stream.expect(SOON).await.change().seq;
    // Ends by itself, within its lifetime and a little.
    assert!(matches!(
        stream.next(Duration::from_secs(5)).await,
        Next::Ended
    ));
    // The reconnect from its last id misses nothing.
    let after = app.create("After the end", "x").await;
    let mut next = EventStream::open(&app.client, &app.address, None, Some(sent)).await;
    let change = next.expect(SOON).await.change();
    assert!(change.seq > sent);
    assert_eq!(change.note_id, after.id);
}

#[tokio::test]
async fn streams_past_a_persons_cap_are_refused_and_a_closed_one_frees_its_place() {
    let app = spawn_app_with(|config| config.streams_per_person = 2).await;
    let first = EventStream::open(&app.client, &app.address, None, None).await;
    let _second = EventStream::open(&app.client, &app.address, None, None).await;
    let third = EventStream::request(&app.client, &app.address, None, None).await;
    assert_eq!(third.status(), 429);
    assert!(third.headers().contains_key("retry-after"));
    assert_eq!(problem_of(third).await.kind, "/problems/too-many-streams");
    // Another person has places of their own.
    let bob = app.new_user("bob").await;
    let _bobs = EventStream::open(&bob, &app.address, None, None).await;
    drop(first);
    let mut reopened = false;
    for _ in 0..50 {
        let response = EventStream::request(&app.client, &app.address, None, None).await;
        if response.status() == 200 {
            reopened = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        reopened,
        "a stream closed by its client gave its place back"
    );
}

#[tokio::test]
async fn the_server_stops_at_once_with_streams_open() {
    let mut app = spawn_app().await;
    let mut stream = EventStream::open(&app.client, &app.address, None, None).await;
    let took = app.shut_down(Duration::from_secs(10)).await;
    assert!(
        took.is_some(),
        "the server stopped without waiting for the open stream"
    );
    assert!(matches!(stream.next(SOON).await, Next::Ended));
}

#[tokio::test]
async fn a_page_says_where_its_persons_feed_stood_when_its_data_was_read() {
    let app = spawn_app().await;
    app.create("one", "x").await;
    app.create("two", "y").await;
    let page = app.get("/").await.text().await.unwrap();
    assert!(
        page.contains("data-seq=\"2\""),
        "{}",
        &page[..page.len().min(2000)]
    );
}
