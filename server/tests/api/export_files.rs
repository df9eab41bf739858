//! Export and import with files: an export carries the person's files (`files.json` and
//! `files/<sha256>`), and an import into another account makes the same bytes that
//! person's files, the imported notes still showing them — exactly once, however often
//! the export is imported. An export whose files are damaged, too large or past the
//! quota imports nothing.

use std::io::{Read, Write};

use app::api::{FileList, ImportReport};
use serde_json::json;
use sha2::{Digest, Sha256};
use zip::write::SimpleFileOptions;

use crate::helpers::{TestApp, problem_of, spawn_app, spawn_app_with};

fn sha256_of(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// A PNG's signature and some bytes: served inline as an image.
fn png() -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    bytes.extend((0..300_000u32).map(|n| (n % 253) as u8));
    bytes
}

/// A PDF-ish file: served as an attachment.
fn pdf() -> Vec<u8> {
    let mut bytes = b"%PDF-1.4\n".to_vec();
    bytes.extend(std::iter::repeat_n(b'x', 5000));
    bytes.extend_from_slice(b"\n%%EOF\n");
    bytes
}

async fn upload(client: &reqwest::Client, app: &TestApp, bytes: &[u8], content_type: &str) {
    let response = client
        .put(app.url(&format!("/api/files/{}", sha256_of(bytes))))
        .header("content-type", content_type)
        .body(bytes.to_vec())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
}

async fn import(client: &reqwest::Client, app: &TestApp, zip: Vec<u8>) -> reqwest::Response {
    client
        .post(app.url("/api/import"))
        .header("content-type", "application/zip")
        .body(zip)
        .send()
        .await
        .unwrap()
}

async fn files_of(client: &reqwest::Client, app: &TestApp) -> FileList {
    client
        .get(app.url("/api/files"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test]
async fn an_export_carries_its_files_and_an_import_makes_them_another_person_s_once() {
    let app = spawn_app().await;
    let (image, document) = (png(), pdf());
    let (image_name, document_name) = (sha256_of(&image), sha256_of(&document));
    upload(&app.client, &app, &image, "image/png").await;
    upload(&app.client, &app, &document, "application/pdf").await;
    let body =
        format!("![whiteboard](/files/{image_name})\n\n[the plan](/files/{document_name})\n");
    app.create("Meeting", &body).await;

    let export = app.get("/api/export").await;
    assert_eq!(export.status(), 200);
    let zip = export.bytes().await.unwrap().to_vec();
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip.clone())).unwrap();
    let mut listed = String::new();
    archive
        .by_name("files.json")
        .unwrap()
        .read_to_string(&mut listed)
        .unwrap();
    let listed: serde_json::Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(listed["files"].as_array().unwrap().len(), 2, "{listed}");
    let mut exported = Vec::new();
    archive
        .by_name(&format!("files/{image_name}"))
        .unwrap()
        .read_to_end(&mut exported)
        .unwrap();
    assert_eq!(exported, image, "the export holds the bytes");

    // Another person imports it: the same bytes, now theirs.
    let bob = app.new_user("bob").await;
    let first = import(&bob, &app, zip.clone()).await;
    assert_eq!(first.status(), 200);
    let report: ImportReport = first.json().await.unwrap();
    assert_eq!((report.imported, report.failed.len()), (1, 0));
    let served = bob
        .get(app.url(&format!("/files/{image_name}")))
        .send()
        .await
        .unwrap();
    assert_eq!(served.status(), 200);
    assert_eq!(served.headers()["content-type"], "image/png");
    assert_eq!(served.bytes().await.unwrap().as_ref(), image.as_slice());
    let attachment = bob
        .get(app.url(&format!("/files/{document_name}")))
        .send()
        .await
        .unwrap();
    assert_eq!(attachment.status(), 200);
    assert!(
        attachment.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .starts_with("attachment")
    );
    assert_eq!(
        attachment.bytes().await.unwrap().as_ref(),
        document.as_slice()
    );
    let theirs = files_of(&bob, &app).await;
    assert_eq!(theirs.files.len(), 2);
    assert_eq!(theirs.used_bytes, (image.len() + document.len()) as u64);
    // The imported note refers to them (and so keeps them from the sweep).
    let notes: app::api::NotesPage = bob
        .get(app.url("/api/notes"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(notes.notes.len(), 1);
    assert_eq!(notes.notes[0].body, body);
    let refs: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM file_refs r JOIN users u ON u.id = r.scope WHERE u.username = 'bob'",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(refs, 2);

    // The same export again adds no note and no file.
    let again = import(&bob, &app, zip).await;
    assert_eq!(again.status(), 200);
    let report: ImportReport = again.json().await.unwrap();
    assert_eq!((report.imported, report.already_there), (0, 1));
    assert_eq!(files_of(&bob, &app).await, theirs);
    let rows: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM files")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(rows, 4, "two files for each person, none twice");
}

/// An export of one note and the given files (name → bytes), as `GET /api/export` makes it.
fn export_with(files: &[(&str, &[u8])]) -> Vec<u8> {
    let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let notes = json!({
        "format": "oncenote-export",
        "version": 2,
        "exported_at": "2026-11-30T05:00:00.000Z",
        "notes": [{
            "id": "00000000-0000-4000-8000-000000000001",
            "title": "With a file",
            "body": format!("![x](/files/{})", files.first().map_or("", |f| f.0)),
            "written_at": "2026-11-30T05:00:00.000Z",
            "created_at": "2026-11-30T05:00:00.000Z",
            "updated_at": "2026-11-30T05:00:00.000Z",
            "version": 1
        }]
    });
    zip.start_file("notes.json", options).unwrap();
    zip.write_all(notes.to_string().as_bytes()).unwrap();
    let listed: Vec<serde_json::Value> = files
        .iter()
        .map(|(name, bytes)| json!({"sha256": name, "size": bytes.len(), "content_type": "image/png", "created_at": "2026-11-30T05:00:00.000Z"}))
        .collect();
    zip.start_file("files.json", options).unwrap();
    zip.write_all(json!({ "files": listed }).to_string().as_bytes())
        .unwrap();
    for (name, bytes) in files {
        zip.start_file(format!("files/{name}"), options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

async fn nothing_imported(app: &TestApp) {
    assert_eq!(app.note_count().await, 0, "a note was imported");
    let files: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM files")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(files, 0, "a file was imported");
}

#[tokio::test]
async fn an_export_whose_file_does_not_hash_to_its_name_is_422_and_imports_nothing() {
    let app = spawn_app().await;
    let named = sha256_of(b"the bytes the name promises");
    let refused = import(
        &app.client,
        &app,
        export_with(&[(&named, b"other bytes".as_slice())]),
    )
    .await;
    assert_eq!(refused.status(), 422);
    let problem = problem_of(refused).await;
    assert!(problem.detail.contains("hash"), "{}", problem.detail);
    nothing_imported(&app).await;
}

#[tokio::test]
async fn an_exported_file_larger_than_the_server_takes_is_413_after_unpacking_and_imports_nothing()
{
    let app = spawn_app_with(|c| c.file_max_bytes = 10_000).await;
    // 100 KB of zeros: deflated to a few hundred bytes, unpacked past the limit.
    let big = vec![0u8; 100_000];
    let refused = import(
        &app.client,
        &app,
        export_with(&[(&sha256_of(&big), big.as_slice())]),
    )
    .await;
    assert_eq!(refused.status(), 413);
    nothing_imported(&app).await;
}

#[tokio::test]
async fn an_export_whose_files_pass_the_quota_is_413_and_imports_nothing() {
    let app = spawn_app_with(|c| c.file_quota_bytes = 5_000).await;
    let (one, two) = (vec![1u8; 3_000], vec![2u8; 3_000]);
    let refused = import(
        &app.client,
        &app,
        export_with(&[
            (&sha256_of(&one), one.as_slice()),
            (&sha256_of(&two), two.as_slice()),
        ]),
    )
    .await;
    assert_eq!(refused.status(), 413);
    assert_eq!(problem_of(refused).await.slug(), "quota-exceeded");
    nothing_imported(&app).await;
}

#[tokio::test]
async fn an_export_declaring_files_past_the_room_left_is_413_before_they_are_unpacked() {
    let app = spawn_app_with(|c| c.file_quota_bytes = 5_000).await;
    // Declared as 6,000 bytes, and damaged besides: had its files been unpacked and
    // hashed first, the answer would be a 422 for the damage.
    let named = sha256_of(&[3u8; 6_000]);
    let damaged = vec![4u8; 6_000];
    let refused = import(
        &app.client,
        &app,
        export_with(&[(&named, damaged.as_slice())]),
    )
    .await;
    assert_eq!(refused.status(), 413);
    assert_eq!(problem_of(refused).await.slug(), "quota-exceeded");
    nothing_imported(&app).await;
}

/// Sends `GET /api/export` as the admin and reads no more than the answer's head: the
/// rest of the body waits in the server, which holds the export's place meanwhile.
async fn export_held(app: &TestApp) -> tokio::net::TcpStream {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let address = app.address.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let token = app.session.clone().expect("the admin's session");
    stream
        .write_all(
            format!(
                "GET /api/export HTTP/1.1\r\nHost: localhost\r\nCookie: oncenote_session={token}\r\n\r\n"
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).await.unwrap();
    assert_eq!(&head, b"HTTP/1.1 200", "the held export is answered");
    stream
}

#[tokio::test]
async fn a_second_export_of_the_same_person_while_one_is_being_sent_is_429_until_it_ends() {
    let app = spawn_app().await;
    // 20 MiB of file: far more than the sockets between client and server buffer, so an
    // export whose client reads nothing stays being sent.
    let mut big = b"%PDF-1.4\n".to_vec();
    big.extend((0..20 * 1024 * 1024u32).map(|n| (n.wrapping_mul(2_654_435_761) >> 24) as u8));
    upload(&app.client, &app, &big, "application/pdf").await;

    let held = export_held(&app).await;
    let second = app.get("/api/export").await;
    assert_eq!(second.status(), 429);
    assert!(second.headers().contains_key("retry-after"));
    assert_eq!(problem_of(second).await.slug(), "too-many-exports");
    // Another person is not held up by this one.
    let other = app.new_user("other").await;
    let theirs = other.get(app.url("/api/export")).send().await.unwrap();
    assert_eq!(theirs.status(), 200);
    theirs.bytes().await.unwrap();

    // The client goes away: its place comes back.
    drop(held);
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let again = app.get("/api/export").await;
        if again.status() == 200 {
            assert!(again.bytes().await.unwrap().len() > big.len());
            break;
        }
        assert_eq!(again.status(), 429);
        assert!(
            tokio::time::Instant::now() < deadline,
            "the place came back"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}
