//! What one import may take: one import of a person's at a time, a bound on the bytes of
//! files it unpacks (a small file named many times), a damaged file costing only itself,
//! and a note read again being the same request even when its export gives it no times.

use std::io::Write;

use app::api::ImportReport;
use zip::write::SimpleFileOptions;

use crate::foreign_imports::{all_notes, import};
use crate::helpers::{problem_of, spawn_app, spawn_app_with};

fn vault(files: &[(&str, Vec<u8>)], stored: bool) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = if stored {
        SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored)
    } else {
        SimpleFileOptions::default()
    };
    for (name, bytes) in files {
        zip.start_file(*name, options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// A one-note vault imported by `client`: the answer.
async fn a_small_import(
    client: &reqwest::Client,
    app: &crate::helpers::TestApp,
) -> reqwest::Response {
    client
        .post(app.url("/api/import"))
        .body(vault(&[("a.md", b"A".to_vec())], false))
        .send()
        .await
        .unwrap()
}

/// What keeps a stalled upload waiting: dropped, its body ends.
type Sending = futures::channel::mpsc::UnboundedSender<Result<Vec<u8>, std::io::Error>>;

/// An import whose upload has begun and then waits for more bytes (until its [`Sending`]
/// is dropped).
fn stalled_import(
    client: &reqwest::Client,
    app: &crate::helpers::TestApp,
) -> (
    Sending,
    tokio::task::JoinHandle<reqwest::Result<reqwest::Response>>,
) {
    let (sending, body) = futures::channel::mpsc::unbounded::<Result<Vec<u8>, std::io::Error>>();
    sending.unbounded_send(Ok(b"PK\x03\x04".to_vec())).unwrap();
    let request = client
        .post(app.url("/api/import"))
        .body(reqwest::Body::wrap_stream(body));
    (sending, tokio::spawn(async move { request.send().await }))
}

#[tokio::test]
async fn uploads_still_arriving_hold_no_import_place() {
    // The process runs two imports at once. Two people whose uploads never finish held
    // both places once, and everyone else's import was 503 until their bodies timed out.
    let app = spawn_app().await;
    let ann = app.new_user("ann").await;
    let bea = app.new_user("bea").await;
    let (ann_sending, ann_import) = stalled_import(&ann, &app);
    let (bea_sending, bea_import) = stalled_import(&bea, &app);
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let theirs = a_small_import(&app.client, &app).await;
    assert_eq!(theirs.status(), 200, "{}", theirs.text().await.unwrap());
    drop((ann_sending, bea_sending));
    let _ = (ann_import.await, bea_import.await);
}

#[tokio::test]
async fn a_second_import_of_the_same_person_while_one_runs_is_429() {
    let app = spawn_app().await;
    // An import that takes a while to read: three thousand notes.
    let notes: Vec<(String, Vec<u8>)> = (0..3_000)
        .map(|n| (format!("note {n}.md"), format!("Note {n}").into_bytes()))
        .collect();
    let files: Vec<(&str, Vec<u8>)> = notes.iter().map(|(n, b)| (n.as_str(), b.clone())).collect();
    let mut first = app
        .client
        .post(app.url("/api/import"))
        .header("accept", app::api::IMPORT_PROGRESS_TYPE)
        .body(vault(&files, false))
        .send()
        .await
        .unwrap();
    assert_eq!(first.status(), 200);
    // Its first line of progress: spooled, and reading.
    let line = first.chunk().await.unwrap().expect("a line of progress");
    assert!(
        String::from_utf8_lossy(&line).contains("progress"),
        "{line:?}"
    );

    let second = a_small_import(&app.client, &app).await;
    assert_eq!(second.status(), 429);
    assert!(second.headers().contains_key("retry-after"));
    assert_eq!(problem_of(second).await.slug(), "import-running");
    // Another person is not held up.
    let bea = app.new_user("bea").await;
    let theirs = a_small_import(&bea, &app).await;
    assert_eq!(theirs.status(), 200);
    // The first ends (its page went away); its place is free again.
    drop(first);
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let third = a_small_import(&app.client, &app).await;
        if third.status() == 200 {
            break;
        }
        assert_eq!(third.status(), 429);
        assert!(
            tokio::time::Instant::now() < deadline,
            "the place never came back"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn a_small_file_named_many_times_unpacks_only_to_the_import_s_bound() {
    // 2 MiB of quota; one MiB of zeros (a kilobyte deflated) under 8 names: every copy is
    // unpacked and hashed before it is known to be the same file.
    let app = spawn_app_with(|config| config.file_quota_bytes = 2 << 20).await;
    let zeros = vec![0u8; 1 << 20];
    let mut files: Vec<(String, Vec<u8>)> = (0..8)
        .map(|n| (format!("v/zeros {n}.bin"), zeros.clone()))
        .collect();
    let links: String = (0..8).map(|n| format!("[z](zeros%20{n}.bin)\n")).collect();
    files.push(("v/links.md".into(), links.into_bytes()));
    let named: Vec<(&str, Vec<u8>)> = files.iter().map(|(n, b)| (n.as_str(), b.clone())).collect();
    let bytes = vault(&named, false);
    assert!(bytes.len() < 64 << 10, "{} bytes", bytes.len());

    let refused = app
        .client
        .post(app.url("/api/import"))
        .body(bytes)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 413);
    let problem = problem_of(refused).await;
    assert!(problem.detail.contains("unpack"), "{}", problem.detail);
}

#[tokio::test]
async fn a_damaged_file_in_an_export_is_refused_alone_and_its_note_comes_in() {
    let app = spawn_app().await;
    let picture = b"\x89PNG\r\n\x1a\n-- a picture whose bytes will be damaged --".to_vec();
    let mut bytes = vault(
        &[
            ("v/note.md", b"See ![[picture.png]]".to_vec()),
            ("v/picture.png", picture.clone()),
        ],
        true,
    );
    // The stored bytes changed after the zip was written: the entry's CRC no longer holds.
    let at = bytes
        .windows(picture.len())
        .position(|w| w == picture.as_slice())
        .unwrap();
    bytes[at + 20] ^= 0xFF;

    let report: ImportReport = import(&app, bytes).await;
    assert_eq!((report.imported, report.files), (1, 0), "{report:?}");
    assert_eq!(report.failed.len(), 1, "{report:?}");
    assert!(report.failed[0].reason.contains("damaged"), "{report:?}");
    let notes = all_notes(&app).await;
    assert!(notes[0].body.contains("picture.png"), "{}", notes[0].body);
}

#[tokio::test]
async fn a_note_its_export_gives_no_times_is_there_already_the_second_time() {
    let app = spawn_app().await;
    let enex = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<en-export><note><title>Timeless</title>\
        <content><![CDATA[<en-note><div>No dates at all.</div></en-note>]]></content></note></en-export>\n";
    let first: ImportReport = import(&app, enex.as_bytes().to_vec()).await;
    assert_eq!(first.imported, 1, "{first:?}");
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let second: ImportReport = import(&app, enex.as_bytes().to_vec()).await;
    assert_eq!(
        (second.imported, second.already_there, second.skipped),
        (0, 1, 0),
        "{second:?}"
    );
}

#[tokio::test]
async fn imports_on_their_way_are_one_of_a_person_s_and_four_of_everyone_s() {
    let app = spawn_app().await;
    // Each of them spooled on disk while it arrives: bounded, or 16 slow uploads could put
    // 17 GiB of imports in the spool at once.
    let mut stalled = Vec::new();
    for name in ["ann", "bea", "cat", "dan"] {
        let person = app.new_user(name).await;
        stalled.push(stalled_import(&person, &app));
        if name == "ann" {
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            let second = a_small_import(&person, &app).await;
            assert_eq!(second.status(), 429);
            assert_eq!(problem_of(second).await.slug(), "import-running");
        }
    }
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let fifth = a_small_import(&app.client, &app).await;
    assert_eq!(fifth.status(), 503);
    assert!(fifth.headers().contains_key("retry-after"));
    assert_eq!(problem_of(fifth).await.slug(), "too-many-imports");
    // One gives up: the next comes in.
    let (sending, request) = stalled.pop().unwrap();
    drop(sending);
    let _ = request.await;
    let next = a_small_import(&app.client, &app).await;
    assert_eq!(next.status(), 200);
}
