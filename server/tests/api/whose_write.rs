//! A write says whose it is. A page keeps the person it was opened for, while the
//! browser's cookie can change under it (that person signs out in another tab, someone
//! else signs in): a write a page sends names its person (`X-Oncenote-User`, or the
//! form's `owner` field), and the server refuses it when someone else is signed in —
//! before anything is claimed or stored — so it stays in the browser for its owner.

use app::api::{
    FORM_OWNER_FIELD, IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, Me, Note, OWNER_HEADER,
    ProblemSlug,
};
use serde_json::json;

use app::save::intent::SaveIntent;
use app::save::retry_policy::{RetryPolicy, Verdict, classify};
use app::save::sender::{BurstEnd, Sender};

use crate::helpers::{TestApp, anonymous, note_json, problem_of, spawn_app};
use crate::transport::{HttpTransport, InstantClock, SteadyHooks};

async fn user_id(app: &TestApp, client: &reqwest::Client) -> String {
    let me: Me = client
        .get(app.url("/api/me"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    me.user_id
}

async fn notes_of(app: &TestApp, client: &reqwest::Client) -> Vec<Note> {
    let page: serde_json::Value = client
        .get(app.url("/api/notes"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    serde_json::from_value(page["notes"].clone()).unwrap()
}

async fn counts(app: &TestApp) -> (i64, i64, i64) {
    (
        app.note_count().await,
        app.key_count().await,
        app.revision_count().await,
    )
}

#[tokio::test]
async fn a_write_for_someone_other_than_the_signed_in_person_is_refused_stores_nothing_and_its_owner_sends_it_once_later()
 {
    let app = spawn_app().await;
    let ada = user_id(&app, &app.client).await;
    // Bea signed in on the browser where Ada's page is still open.
    let bea = app.new_user("bea").await;
    let before = counts(&app).await;

    let send = |client: &reqwest::Client, owner: &str| {
        client
            .post(app.url("/api/notes"))
            .header(IDEMPOTENCY_KEY_HEADER, "ada-key-1")
            .header(OWNER_HEADER, owner)
            .json(&note_json("Ada's note"))
            .send()
    };
    let refused = send(&bea, &ada).await.unwrap();
    assert_eq!(refused.status(), 409);
    assert!(
        problem_of(refused)
            .await
            .is(ProblemSlug::SignedInAsSomeoneElse)
    );
    assert_eq!(counts(&app).await, before, "nothing stored, no key claimed");
    assert!(notes_of(&app, &bea).await.is_empty());

    // Ada signs in again: the same key, sent by its owner, is stored — once.
    let saved = send(&app.client, &ada).await.unwrap();
    assert_eq!(saved.status(), 201);
    let note: Note = saved.json().await.unwrap();
    let again = send(&app.client, &ada).await.unwrap();
    assert_eq!(again.headers()[IDEMPOTENT_REPLAYED_HEADER], "true");
    assert_eq!(again.json::<Note>().await.unwrap().id, note.id);
    let ada_notes = notes_of(&app, &app.client).await;
    assert_eq!(ada_notes.len(), 1);
    assert_eq!(ada_notes[0].id, note.id);
    assert!(notes_of(&app, &bea).await.is_empty());
}

#[tokio::test]
async fn every_kind_of_write_for_someone_else_is_refused_before_it_is_looked_at() {
    let app = spawn_app().await;
    let ada = user_id(&app, &app.client).await;
    let note = app.create("Ada's", "b").await;
    let bea = app.new_user("bea").await;
    let before = counts(&app).await;
    let id = &note.id;
    let edit = json!({ "title": "x", "body": "y", "base_version": 1, "written_at": "2026-11-30T05:00:00Z" });
    let requests = [
        bea.post(app.url("/api/notes")).json(&note_json("x")),
        bea.patch(app.url(&format!("/api/notes/{id}"))).json(&edit),
        bea.delete(app.url(&format!("/api/notes/{id}"))),
        bea.delete(app.url(&format!("/api/notes/{id}?permanent=true"))),
        bea.post(app.url(&format!("/api/notes/{id}/restore"))),
    ];
    for request in requests {
        let response = request
            .header(IDEMPOTENCY_KEY_HEADER, uuid::Uuid::new_v4().to_string())
            .header(OWNER_HEADER, &ada)
            .send()
            .await
            .unwrap();
        let url = response.url().to_string();
        // Not a 404 for Ada's note, which the page would take as a refusal for good.
        assert_eq!(response.status(), 409, "{url}");
        assert!(
            problem_of(response)
                .await
                .is(ProblemSlug::SignedInAsSomeoneElse),
            "{url}"
        );
    }
    assert_eq!(counts(&app).await, before);
    assert_eq!(app.note(id).await.version, 1);
}

#[tokio::test]
async fn a_write_naming_its_own_person_or_no_one_is_taken_as_before() {
    let app = spawn_app().await;
    let bea = app.new_user("bea").await;
    let bea_id = user_id(&app, &bea).await;
    let named = bea
        .post(app.url("/api/notes"))
        .header(IDEMPOTENCY_KEY_HEADER, "k1")
        .header(OWNER_HEADER, &bea_id)
        .json(&note_json("Named"))
        .send()
        .await
        .unwrap();
    assert_eq!(named.status(), 201);
    // curl, scripts: no header, the signed-in person's write.
    let unnamed = bea
        .post(app.url("/api/notes"))
        .header(IDEMPOTENCY_KEY_HEADER, "k2")
        .json(&note_json("Unnamed"))
        .send()
        .await
        .unwrap();
    assert_eq!(unnamed.status(), 201);
    assert_eq!(notes_of(&app, &bea).await.len(), 2);
}

#[tokio::test]
async fn a_page_form_for_someone_else_is_refused_with_the_text_given_back() {
    let app = spawn_app().await;
    let ada = user_id(&app, &app.client).await;
    let home = app.get("/").await.text().await.unwrap();
    assert!(
        home.contains(&format!(r#"name="{FORM_OWNER_FIELD}" value="{ada}""#)),
        "the page's form names its person"
    );
    let bea = app.new_user("bea").await;
    let before = counts(&app).await;
    let response = bea
        .post(app.url("/notes"))
        .form(&[
            ("idempotency_key", "form-key-1"),
            (FORM_OWNER_FIELD, ada.as_str()),
            ("title", "Ada's form"),
            ("body", "typed before Bea signed in"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 409);
    let html = response.text().await.unwrap();
    assert!(html.contains("typed before Bea signed in"), "{html}");
    assert!(html.contains("another account"), "{html}");
    assert!(
        html.contains(&format!(r#"name="{FORM_OWNER_FIELD}" value="{ada}""#)),
        "the form given back is still Ada's: {html}"
    );
    assert_eq!(counts(&app).await, before);
    assert!(notes_of(&app, &bea).await.is_empty());
}

#[tokio::test]
async fn the_pages_sender_keeps_a_write_refused_for_someone_else_waiting_and_sends_it_once_for_its_person()
 {
    let app = spawn_app().await;
    let ada = user_id(&app, &app.client).await;
    app.new_user("bea").await;
    let bea_session = app.sign_in("bea", "password of a user").await;
    let intent = SaveIntent::create(
        uuid::Uuid::new_v4().to_string(),
        "Typed in Ada's tab",
        "after Bea signed in",
        "2026-11-30T05:00:00.000Z".into(),
    );
    let send = |session: &str| {
        let sender = Sender::new(
            HttpTransport {
                client: anonymous(),
                base: app.address.clone(),
                session: Some(session.to_owned()),
                owner: Some(ada.clone()),
            },
            InstantClock::default(),
            RetryPolicy::default(),
        );
        let intent = intent.clone();
        async move { sender.run_burst(&intent, &mut SteadyHooks).await }
    };
    let before = counts(&app).await;
    let BurstEnd::Waiting { last } = send(&bea_session).await else {
        panic!("the write waits for its person");
    };
    assert_eq!(classify(&last), Verdict::SignInNeeded, "{last:?}");
    assert_eq!(counts(&app).await, before);

    let ada_session = app.session.clone().expect("the admin's session");
    match send(&ada_session).await {
        BurstEnd::Saved { replayed, .. } => assert!(!replayed),
        other => panic!("expected a save, got {other:?}"),
    }
    assert!(matches!(
        send(&ada_session).await,
        BurstEnd::Saved { replayed: true, .. }
    ));
    assert_eq!(notes_of(&app, &app.client).await.len(), 1);
}
