//! `POST /api/import` against hostile archives: bounded in what it unpacks, in how many
//! notes and entries it takes, in what it echoes back, and in the memory it uses.

use crate::server_process::{ServerProcess, resident_bytes};
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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
    let before = resident_bytes(pid);
    let peak = Arc::new(AtomicU64::new(before));
    let done = Arc::new(AtomicBool::new(false));
    let sampler = std::thread::spawn({
        let (peak, done) = (peak.clone(), done.clone());
        move || {
            while !done.load(Ordering::Relaxed) {
                peak.fetch_max(resident_bytes(pid), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(2));
            }
        }
    });
    let refused = client
        .post(format!("{}/api/import", server.address))
        .header("cookie", &cookie)
        .header("content-type", "application/zip")
        .body(zip)
        .send()
        .await
        .unwrap();
    done.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    let grew = peak.load(Ordering::Relaxed).saturating_sub(before);
    eprintln!(
        "the server's resident memory: {} MiB before the import, {} MiB at its peak (+{} MiB)",
        before >> 20,
        peak.load(Ordering::Relaxed) >> 20,
        grew >> 20
    );

    assert_eq!(refused.status(), 413);
    assert_eq!(problem_of(refused).await.slug(), "payload-too-large");
    let notes: serde_json::Value = client
        .get(format!("{}/api/notes", server.address))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        notes["notes"].as_array().map(Vec::len),
        Some(0),
        "nothing was imported"
    );
    assert!(
        grew < 64 << 20,
        "the import held {} MiB while reading a bomb",
        grew >> 20
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
