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

#[tokio::test]
async fn a_second_import_of_the_same_person_while_one_runs_is_429() {
    let app = spawn_app().await;
    // The first import's upload is still arriving: its place is held from the start.
    let (sending, body) = futures::channel::mpsc::unbounded::<Result<Vec<u8>, std::io::Error>>();
    sending.unbounded_send(Ok(b"PK\x03\x04".to_vec())).unwrap();
    let first = tokio::spawn({
        let request = app
            .client
            .post(app.url("/api/import"))
            .body(reqwest::Body::wrap_stream(body));
        async move { request.send().await }
    });
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;

    let second = app
        .client
        .post(app.url("/api/import"))
        .body(vault(&[("a.md", b"A".to_vec())], false))
        .send()
        .await
        .unwrap();
    assert_eq!(second.status(), 429);
    assert!(second.headers().contains_key("retry-after"));
    assert_eq!(problem_of(second).await.slug(), "import-running");
    // Another person is not held up.
    let bea = app.new_user("bea").await;
    let theirs = bea
        .post(app.url("/api/import"))
        .body(vault(&[("a.md", b"A".to_vec())], false))
        .send()
        .await
        .unwrap();
    assert_eq!(theirs.status(), 200);
    // The first ends (its upload broken off); its place is free again.
    drop(sending);
    let _ = first.await;
    let third = app
        .client
        .post(app.url("/api/import"))
        .body(vault(&[("a.md", b"A".to_vec())], false))
        .send()
        .await
        .unwrap();
    assert_eq!(third.status(), 200);
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
