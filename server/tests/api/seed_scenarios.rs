//! Seed 002's scenarios, driven through the project's own client core (`Sender`) against
//! the real server, with a transport that loses answers after the server committed.
//! Like the seed's `createWithRetry`, a burst here sends at most twice.

use app::save::intent::{IntentKind, SaveIntent};
use app::save::outcome::{AttemptOutcome, WriteAnswer};
use app::save::retry_policy::RetryPolicy;
use app::save::sender::{BurstEnd, Sender, Transport};

use crate::helpers::{TestApp, spawn_app};
use crate::transport::{HttpTransport, InstantClock, LosesAnswers, NewKeyPerAttempt, SteadyHooks};

fn two_sends() -> RetryPolicy {
    RetryPolicy {
        burst_attempts: 2,
        ..RetryPolicy::default()
    }
}

fn http(app: &TestApp) -> HttpTransport {
    HttpTransport {
        client: app.client.clone(),
        base: app.address.clone(),
        session: app.session.clone(),
        owner: None,
    }
}

fn intent(title: &str) -> SaveIntent {
    SaveIntent::create(
        uuid::Uuid::new_v4().to_string(),
        title,
        "buy milk",
        "2026-11-30T05:00:00.000Z".into(),
    )
}

async fn save<T: Transport>(
    transport: T,
    intent: &SaveIntent,
) -> (BurstEnd, Sender<T, InstantClock>) {
    let sender = Sender::new(transport, InstantClock::default(), two_sends());
    let end = sender.run_burst(intent, &mut SteadyHooks).await;
    (end, sender)
}

async fn ids_in_database(app: &TestApp) -> Vec<String> {
    sqlx::query_scalar("SELECT id FROM notes ORDER BY created_at")
        .fetch_all(&app.pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn scenario_1_a_new_key_per_attempt_reproduces_the_duplicate() {
    let app = spawn_app().await;
    let lossy = LosesAnswers::new(NewKeyPerAttempt(http(&app)), 1);
    let (end, _) = save(lossy, &intent("Groceries")).await;

    let ids = ids_in_database(&app).await;
    assert_eq!(ids.len(), 2, "the unsafe client made a second note");
    match end {
        BurstEnd::Saved {
            answer: WriteAnswer::Created(note),
            replayed,
        } => {
            assert_eq!(note.id, ids[1], "the caller got the second note");
            assert!(!replayed);
        }
        other => panic!("expected a save, got {other:?}"),
    }
}

#[tokio::test]
async fn scenario_2_one_key_reused_stores_one_note_and_returns_the_original() {
    let app = spawn_app().await;
    let lossy = LosesAnswers::new(http(&app), 1);
    let intent = intent("Groceries");
    let (end, sender) = save(lossy, &intent).await;

    let ids = ids_in_database(&app).await;
    assert_eq!(ids.len(), 1);
    assert_eq!(
        *sender.transport.keys_sent.borrow(),
        vec![intent.key.clone(); 2],
        "two sends, one key"
    );
    match end {
        BurstEnd::Saved {
            answer: WriteAnswer::Created(note),
            replayed,
        } => {
            assert_eq!(note.id, ids[0], "the caller got the original note");
            assert_eq!(note.title, "Groceries");
            assert!(replayed, "the second answer was a replay");
        }
        other => panic!("expected a save, got {other:?}"),
    }
}

#[tokio::test]
async fn scenario_3_two_independent_saves_of_the_same_title_store_two_notes() {
    let app = spawn_app().await;
    let (first, _) = save(http(&app), &intent("Groceries")).await;
    let (second, _) = save(http(&app), &intent("Groceries")).await;

    let (
        BurstEnd::Saved {
            answer: WriteAnswer::Created(a),
            ..
        },
        BurstEnd::Saved {
            answer: WriteAnswer::Created(b),
            ..
        },
    ) = (first, second)
    else {
        panic!("both saves succeed");
    };
    assert_ne!(a.id, b.id);
    assert_eq!(app.note_count().await, 2);
}

#[tokio::test]
async fn scenario_4_the_same_key_with_another_title_is_refused_and_writes_nothing() {
    let app = spawn_app().await;
    let original = intent("Groceries");
    let (first, _) = save(http(&app), &original).await;
    assert!(matches!(first, BurstEnd::Saved { .. }));

    let reused = SaveIntent {
        kind: IntentKind::Create {
            title: "Something else".into(),
            body: "buy milk".into(),
        },
        ..original.clone()
    };
    let counting = LosesAnswers::new(http(&app), 0);
    let (end, sender) = save(counting, &reused).await;

    match end {
        BurstEnd::Failed { problem } => {
            assert_eq!(problem.status, 422);
            assert_eq!(problem.slug(), "idempotency-key-reused");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert_eq!(
        sender.transport.keys_sent.borrow().len(),
        1,
        "a refusal is not retried"
    );
    assert_eq!(app.note_count().await, 1);
}

#[tokio::test]
async fn scenario_5_both_answers_lost_leaves_one_note_and_the_caller_sees_an_error() {
    let app = spawn_app().await;
    let lossy = LosesAnswers::new(http(&app), 2);
    let (end, sender) = save(lossy, &intent("Groceries")).await;

    assert!(
        matches!(
            end,
            BurstEnd::Waiting {
                last: AttemptOutcome::Network { .. }
            }
        ),
        "after its last attempt the caller has only an error: {end:?}"
    );
    assert_eq!(sender.transport.keys_sent.borrow().len(), 2);
    assert_eq!(
        app.note_count().await,
        1,
        "the note is stored all the same, once"
    );
}

#[tokio::test]
async fn a_later_burst_of_the_same_intent_gets_the_stored_note_back() {
    // What the page does after scenario 5: the intent stays in localStorage, and the
    // next burst (online, reload, Retry now) sends the same key and gets the replay.
    let app = spawn_app().await;
    let intent = intent("Groceries");
    let (first, _) = save(LosesAnswers::new(http(&app), 2), &intent).await;
    assert!(matches!(first, BurstEnd::Waiting { .. }));
    let (second, _) = save(http(&app), &intent).await;
    assert!(
        matches!(second, BurstEnd::Saved { replayed: true, .. }),
        "{second:?}"
    );
    assert_eq!(app.note_count().await, 1);
}
