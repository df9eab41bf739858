//! `POST /api/import` against hostile archives: bounded in what it unpacks, in how many
//! notes and entries it takes, in what it echoes back, and in the memory it uses.

use crate::server_process::{ServerProcess, peak_memory_while};
use std::io::Write;
use std::time::Duration;

use serde_json::json;
use zip::write::SimpleFileOptions;

use crate::helpers::{TestApp, problem_of, spawn_app};

/// The most notes one import takes (docs/PROTOCOL.md, Import).
const MAX_NOTES: usize = 10_000;
/// The most files one import takes.
const MAX_FILES: usize = 10_000;
/// The most bytes `notes.json` may unpack to.
const MAX_INFLATED: usize = 128 * 1024 * 1024;

fn options() -> SimpleFileOptions {
    SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated)
}

/// An archive with `notes.json` as given (written in pieces, so a large one is never
/// whole in memory) and `extra` empty entries besides.
fn archive(pieces: impl IntoIterator<Item = Vec<u8>>, extra: usize) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    zip.start_file("notes.json", options()).unwrap();
    for piece in pieces {
        zip.write_all(&piece).unwrap();
    }
    for n in 0..extra {
        zip.start_file(format!("notes/{n}.md"), options()).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

fn note(n: usize, title: &str) -> serde_json::Value {
    json!({
        "id": format!("00000000-0000-4000-8000-{n:012}"),
        "title": title,
        "body": "body text",
        "written_at": "2026-11-30T05:00:00.000Z",
        "created_at": "2026-11-30T05:00:00.000Z",
        "updated_at": "2026-11-30T05:00:00.000Z",
        "version": 1
    })
}

fn export_of(notes: Vec<serde_json::Value>) -> Vec<u8> {
    let export = json!({
        "format": "oncenote-export",
        "version": 1,
        "exported_at": "2026-11-30T05:00:00.000Z",
        "notes": notes
    });
    archive([serde_json::to_vec(&export).unwrap()], 0)
}

/// `GET /api/notes` of the server process, as the person signed in by `cookie`.
async fn notes_of(
    client: &reqwest::Client,
    server: &ServerProcess,
    cookie: &str,
) -> serde_json::Value {
    client
        .get(format!("{}/api/notes", server.address))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

async fn import(app: &TestApp, content_type: Option<&str>, zip: Vec<u8>) -> reqwest::Response {
    let mut request = app.client.post(app.url("/api/import")).body(zip);
    if let Some(content_type) = content_type {
        request = request.header("content-type", content_type);
    }
    request.send().await.expect("the server answers")
}

#[tokio::test]
async fn an_export_that_unpacks_past_the_limit_is_413_imports_nothing_and_keeps_memory_bounded() {
    // A valid export with one note, padded with spaces (valid JSON between two array
    // elements) to past the limit: about 140 MB that deflate to a fraction of a megabyte.
    let head = format!(
        "{{\"format\":\"oncenote-export\",\"version\":1,\"exported_at\":\"2026-11-30T05:00:00.000Z\",\"notes\":[{}",
        note(1, "First")
    );
    let padding = (0..(MAX_INFLATED / (1 << 20) + 8)).map(|_| vec![b' '; 1 << 20]);
    let zip = archive(
        std::iter::once(head.into_bytes())
            .chain(padding)
            .chain(std::iter::once(b"]}".to_vec())),
        0,
    );
    assert!(
        zip.len() < 2 << 20,
        "the bomb is small: {} bytes",
        zip.len()
    );

    // The archive is made first: a server connection left idle meanwhile would close.
    let data = tempfile::tempdir().unwrap();
    let database_url = format!("sqlite://{}", data.path().join("import.db").display());
    let server = ServerProcess::start(&[("DATABASE_URL", database_url)]).await;
    let pid = server.child.id();
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(120))
        // A fresh connection for each request: an idle one may be closed by the server.
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let cookie = server.admin_cookie().await;
    let (refused, memory) = peak_memory_while(pid, async {
        client
            .post(format!("{}/api/import", server.address))
            .header("cookie", &cookie)
            .header("content-type", "application/zip")
            .body(zip)
            .send()
            .await
            .unwrap()
    })
    .await;
    eprintln!("the server's resident memory around the import: {memory}");

    assert_eq!(refused.status(), 413);
    assert_eq!(problem_of(refused).await.slug(), "payload-too-large");
    let notes = notes_of(&client, &server, &cookie).await;
    assert_eq!(
        notes["notes"].as_array().map(Vec::len),
        Some(0),
        "nothing was imported"
    );
    assert!(
        memory.grew() < 64 << 20,
        "the import held {} MiB while reading a bomb",
        memory.grew() >> 20
    );
}

#[tokio::test]
async fn an_archive_with_more_entries_than_an_export_has_is_422() {
    let app = spawn_app().await;
    let export =
        json!({"format": "oncenote-export", "version": 1, "exported_at": "x", "notes": []});
    let zip = archive(
        [serde_json::to_vec(&export).unwrap()],
        2 * MAX_NOTES + MAX_FILES + 100,
    );

    let refused = import(&app, Some("application/zip"), zip).await;
    assert_eq!(refused.status(), 422);
    let problem = problem_of(refused).await;
    assert_eq!(problem.slug(), "validation-failed");
    assert!(problem.detail.contains("entries"), "{}", problem.detail);
}

#[tokio::test]
async fn an_export_with_more_notes_than_an_import_takes_is_422_and_imports_nothing() {
    let app = spawn_app().await;
    let notes = (0..=MAX_NOTES).map(|n| note(n, "A note")).collect();

    let refused = import(&app, Some("application/zip"), export_of(notes)).await;
    assert_eq!(refused.status(), 422);
    let problem = problem_of(refused).await;
    assert_eq!(problem.slug(), "validation-failed");
    assert!(problem.detail.contains("10,000"), "{}", problem.detail);
    assert_eq!(app.note_count().await, 0, "nothing was imported");
}

#[tokio::test]
async fn a_note_that_cannot_be_imported_is_named_by_the_start_of_its_title_only() {
    let app = spawn_app().await;
    let long = "t".repeat(5_000);
    let zip = export_of(vec![note(1, &long), note(2, "Fine")]);

    let answer = import(&app, Some("application/zip"), zip).await;
    assert_eq!(answer.status(), 200);
    let report: serde_json::Value = answer.json().await.unwrap();
    assert_eq!(report["imported"], 1);
    let failed = report["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 1);
    let name = failed[0]["name"].as_str().unwrap();
    let reason = failed[0]["reason"].as_str().unwrap();
    assert_eq!(
        name,
        format!("{}…", "t".repeat(80)),
        "the failure echoes {name:?}"
    );
    assert!(
        reason.chars().count() < 200,
        "the failure echoes {reason:?}"
    );
    assert!(reason.contains("title"), "says what is wrong: {reason:?}");
}

#[tokio::test]
async fn a_text_longer_than_any_note_can_hold_refuses_the_export_without_echoing_it() {
    let app = spawn_app().await;
    let zip = export_of(vec![note(1, &"t".repeat(20_000_000)), note(2, "Fine")]);

    let refused = import(&app, Some("application/zip"), zip).await;
    assert_eq!(refused.status(), 422);
    let body = refused.bytes().await.unwrap();
    assert!(body.len() < 1024, "an answer of {} bytes", body.len());
    assert_eq!(app.note_count().await, 0, "nothing was imported");
}

#[tokio::test]
async fn a_note_the_database_fails_on_is_reported_without_the_database_s_words() {
    let app = spawn_app().await;
    app.db.fail_note_inserts(&app.pool).await;

    let answer = import(
        &app,
        Some("application/zip"),
        export_of(vec![note(1, "Groceries")]),
    )
    .await;
    app.db.stop_failing_note_inserts(&app.pool).await;
    assert_eq!(answer.status(), 200);
    let report: serde_json::Value = answer.json().await.unwrap();
    assert_eq!(report["failed"][0]["name"], "Groceries");
    let line = report["failed"][0]["reason"].as_str().unwrap();
    assert!(
        !line.contains("injected") && !line.to_lowercase().contains("trigger"),
        "the database's message reached the client: {line:?}"
    );
}

#[tokio::test]
async fn an_import_is_told_by_its_content_never_its_content_type_and_no_known_kind_is_415() {
    let app = spawn_app().await;
    let zip = || export_of(vec![note(1, "Groceries")]);

    for content_type in [None, Some("text/plain"), Some("application/zip")] {
        let answer = import(&app, content_type, zip()).await;
        assert_eq!(answer.status(), 200, "content type {content_type:?}");
        let report: serde_json::Value = answer.json().await.unwrap();
        assert_eq!(report["kind"], "oncenote");
    }
    assert_eq!(app.note_count().await, 1, "the later imports added nothing");
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    let empty_zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()))
        .finish()
        .unwrap()
        .into_inner();
    for (what, bytes) in [
        ("a PNG", png),
        ("nothing", Vec::new()),
        ("an empty zip", empty_zip),
    ] {
        let refused = import(&app, Some("application/zip"), bytes).await;
        assert_eq!(refused.status(), 415, "{what}");
        let problem = problem_of(refused).await;
        assert_eq!(problem.slug(), "unsupported-media-type", "{what}");
        assert!(
            problem.detail.contains("Evernote"),
            "says what it takes: {}",
            problem.detail
        );
    }
}

/// The outside review's Standard Notes file: one tag whose title is 1.9 MB, naming 50,000
/// notes (none of them in the backup) and three that are. Under 4 MB, within what one
/// item may take.
fn standard_notes_tag_bomb() -> Vec<u8> {
    let uuid = |n: usize| format!("n{n}");
    let references: Vec<serde_json::Value> = (0..50_003)
        .map(|n| json!({"uuid": uuid(n), "content_type": "Note"}))
        .collect();
    let tag = json!({
        "uuid": "t", "content_type": "Tag",
        "content": {"title": "t".repeat(1_900_000), "references": references}
    });
    let notes: Vec<String> = (50_000..50_003)
        .map(|n| {
            json!({
                "uuid": uuid(n), "content_type": "Note",
                "content": {"title": format!("Note {n}"), "text": "text", "references": []}
            })
            .to_string()
        })
        .collect();
    // "version" first: the kind is told from the first keys.
    format!(r#"{{"version":"004","items":[{tag},{}]}}"#, notes.join(",")).into_bytes()
}

#[tokio::test]
async fn a_standard_notes_tag_named_by_50_000_notes_keeps_memory_bounded_and_the_server_up() {
    let backup = standard_notes_tag_bomb();
    assert!(backup.len() < 4_000_000, "{} bytes", backup.len());
    let data = tempfile::tempdir().unwrap();
    let database_url = format!("sqlite://{}", data.path().join("bomb.db").display());
    let server = ServerProcess::start(&[("DATABASE_URL", database_url)]).await;
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(120))
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let cookie = server.admin_cookie().await;
    let (answer, memory) = peak_memory_while(server.child.id(), async {
        let answer = client
            .post(format!("{}/api/import", server.address))
            .header("cookie", &cookie)
            .body(backup)
            .send()
            .await
            .expect("the server answers the import (it once aborted on an allocation)");
        (answer.status(), answer.text().await.unwrap())
    })
    .await;
    eprintln!("the server's resident memory around the import: {memory}");
    let (status, text) = answer;
    assert_eq!(status, 200, "{text}");
    let report: app::api::ImportReport = serde_json::from_str(&text).unwrap();
    assert_eq!(report.imported, 3, "{report:?}");
    // The title, cut to what a tag can use, is one tag of each note.
    let notes = notes_of(&client, &server, &cookie).await;
    for note in notes["notes"].as_array().unwrap() {
        let body = note["body"].as_str().unwrap();
        assert!(
            body.ends_with(&format!("#{}", "t".repeat(100))),
            "{body:.200}"
        );
    }
    assert!(
        memory.grew() < 64 << 20,
        "the import held {} MiB for a {} KB backup",
        memory.grew() >> 20,
        text.len() >> 10
    );
    let healthy = client
        .get(format!("{}/healthz", server.address))
        .send()
        .await
        .unwrap();
    assert_eq!(healthy.status(), 200);
}
