//! An import the page watches (`Accept: application/x-ndjson`: lines of progress, then the
//! report), and an import cut short — the page closed, the server killed — finished by
//! importing the same file again, with no note made twice.

use std::io::Write;
use std::time::Duration;

use app::api::{ImportLine, ImportReport};
use futures::StreamExt;
use serde_json::json;
use zip::write::SimpleFileOptions;

use crate::foreign_imports::import;
use crate::helpers::{ADMIN, ADMIN_PASSWORD, session_token, spawn_app};
use crate::server_process::{ServerProcess, peak_memory_while};

/// A zip of `notes` Markdown files, as a vault would be.
fn vault(notes: usize) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for n in 0..notes {
        zip.start_file(
            format!("vault/folder {}/note {n}.md", n % 7),
            SimpleFileOptions::default(),
        )
        .unwrap();
        write!(zip, "---\ntags: [imported]\n---\nNote number {n}. #vault\n").unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// Sends `bytes` to `address`'s import asking for progress, reads lines until one says at
/// least a note is done, then drops the answer (as a closed tab does). Returns the lines.
async fn start_and_leave(
    client: &reqwest::Client,
    address: &str,
    cookie: Option<&str>,
    bytes: Vec<u8>,
) -> usize {
    let mut request = client
        .post(format!("{address}/api/import"))
        .header("accept", "application/x-ndjson")
        .body(bytes);
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    let answer = request.send().await.unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.headers()["content-type"], "application/x-ndjson");
    let mut stream = answer.bytes_stream();
    let mut text = String::new();
    while let Some(chunk) = stream.next().await {
        text.push_str(&String::from_utf8_lossy(&chunk.unwrap()));
        let done = text
            .lines()
            .filter_map(|l| serde_json::from_str::<ImportLine>(l).ok())
            .find_map(|line| match line {
                ImportLine::Progress(p) if p.notes > 0 => Some(p.notes),
                ImportLine::Report(r) => {
                    panic!("the import finished before it could be cut: {r:?}")
                }
                _ => None,
            });
        if let Some(notes) = done {
            return notes;
        }
    }
    panic!("the stream ended without progress: {text}");
}

/// The note count once it stops moving.
async fn settled(mut count: impl AsyncFnMut() -> i64) -> i64 {
    let mut last = count().await;
    loop {
        tokio::time::sleep(Duration::from_millis(700)).await;
        let now = count().await;
        if now == last {
            return now;
        }
        last = now;
    }
}

#[tokio::test]
async fn a_watched_import_sends_progress_lines_then_its_report_last() {
    let app = spawn_app().await;
    let answer = app
        .client
        .post(app.url("/api/import"))
        .header("accept", "application/x-ndjson")
        .body(vault(300))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.headers()["content-type"], "application/x-ndjson");
    assert!(
        answer.headers().get("content-encoding").is_none(),
        "never held back by compression"
    );
    let text = answer.text().await.unwrap();
    let lines: Vec<ImportLine> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (last, progress) = lines.split_last().unwrap();
    let ImportLine::Report(report) = last else {
        panic!("the last line is the report: {text}");
    };
    assert_eq!((report.kind.as_str(), report.imported), ("markdown", 300));
    let mut seen = 0;
    for line in progress {
        let ImportLine::Progress(p) = line else {
            panic!("only progress before the report: {text}");
        };
        assert!(p.notes >= seen && p.notes <= 300, "{text}");
        seen = p.notes;
    }
    assert_eq!(app.note_count().await, 300);
}

#[tokio::test]
async fn an_import_left_by_its_page_stops_and_the_same_file_again_finishes_it_without_doubles() {
    const NOTES: usize = 1_500;
    let app = spawn_app().await;
    let bytes = vault(NOTES);
    start_and_leave(&app.client, &app.url(""), None, bytes.clone()).await;
    let made = settled(async || app.note_count().await).await;
    assert!(
        (1..NOTES as i64).contains(&made),
        "the import stopped when its page went away: {made} of {NOTES} made"
    );

    let report: ImportReport = import(&app, bytes).await;
    assert_eq!(report.already_there as i64, made, "{report:?}");
    assert_eq!(report.imported + report.already_there, NOTES, "{report:?}");
    assert_eq!(app.note_count().await, NOTES as i64, "no note made twice");
}

#[tokio::test]
async fn an_import_cut_by_a_killed_server_is_finished_after_the_restart_without_doubles() {
    const NOTES: usize = 1_500;
    let bytes = vault(NOTES);
    let data = tempfile::tempdir().unwrap();
    let env = [(
        "DATABASE_URL",
        format!("sqlite://{}", data.path().join("kill.db").display()),
    )];
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(120))
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let sign_in = async |address: &str| {
        let signed_in = client
            .post(format!("{address}/api/session"))
            .json(&json!({ "username": ADMIN, "password": ADMIN_PASSWORD }))
            .send()
            .await
            .unwrap();
        format!(
            "oncenote_session={}",
            session_token(&signed_in).expect("signed in")
        )
    };
    let count = async |address: &str, cookie: &str| {
        let notes: serde_json::Value = client
            .get(format!("{address}/api/tags"))
            .header("cookie", cookie)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        notes["tags"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "vault")
            .map_or(0, |t| t["count"].as_i64().unwrap())
    };

    let mut server = ServerProcess::start(&env).await;
    let cookie = sign_in(&server.address).await;
    start_and_leave(&client, &server.address, Some(&cookie), bytes.clone()).await;
    server.kill();

    let server = ServerProcess::start(&env).await;
    let cookie = sign_in(&server.address).await;
    let made = count(&server.address, &cookie).await;
    assert!(
        (1..NOTES as i64).contains(&made),
        "{made} of {NOTES} made before the kill"
    );
    let answer = client
        .post(format!("{}/api/import", server.address))
        .header("cookie", &cookie)
        .body(bytes)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let report: ImportReport = answer.json().await.unwrap();
    assert_eq!(report.imported + report.already_there, NOTES, "{report:?}");
    assert_eq!(report.already_there as i64, made, "{report:?}");
    assert_eq!(
        count(&server.address, &cookie).await,
        NOTES as i64,
        "no note made twice"
    );
}

/// An Evernote export of `notes` notes of about `text_bytes` of text each.
fn large_enex(notes: usize, text_bytes: usize) -> Vec<u8> {
    let mut enex = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE en-export SYSTEM \"http://xml.evernote.com/pub/evernote-export3.dtd\">\n<en-export export-date=\"20260101T000000Z\" application=\"Evernote\" version=\"10.0\">\n",
    );
    let paragraph = "<div>Words of a long note, written over many evenings. </div>";
    for n in 0..notes {
        let text = paragraph.repeat(text_bytes / paragraph.len());
        enex.push_str(&format!(
            "<note><title>Evening {n}</title><content><![CDATA[<?xml version=\"1.0\" encoding=\"UTF-8\"?><!DOCTYPE en-note SYSTEM \"http://xml.evernote.com/pub/enml2.dtd\"><en-note>{text}</en-note>]]></content><created>20200528T141404Z</created><updated>20200529T141404Z</updated><tag>evenings</tag></note>\n"
        ));
    }
    enex.push_str("</en-export>\n");
    enex.into_bytes()
}

#[tokio::test]
async fn a_large_export_is_imported_as_a_stream_without_holding_it_in_memory() {
    let enex = large_enex(1_500, 24 * 1024);
    assert!(
        enex.len() > 32 << 20,
        "tens of megabytes: {} bytes",
        enex.len()
    );
    let size = enex.len() as u64;
    let data = tempfile::tempdir().unwrap();
    let env = [(
        "DATABASE_URL",
        format!("sqlite://{}", data.path().join("large.db").display()),
    )];
    let server = ServerProcess::start(&env).await;
    let pid = server.child.id();
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(600))
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let cookie = server.admin_cookie().await;
    let ((status, text), memory) = peak_memory_while(pid, async {
        let answer = client
            .post(format!("{}/api/import", server.address))
            .header("cookie", &cookie)
            .body(enex)
            .send()
            .await
            .unwrap();
        (answer.status(), answer.text().await.unwrap())
    })
    .await;
    assert_eq!(status, 200, "{text}");
    let report: ImportReport = serde_json::from_str(&text).unwrap();
    assert_eq!(
        (report.imported, report.failed.len()),
        (1_500, 0),
        "{report:?}"
    );
    eprintln!(
        "importing a {} MiB export: resident memory {memory}",
        size >> 20
    );
    assert!(
        memory.grew() < size / 2,
        "the import held {} MiB while reading a {} MiB export",
        memory.grew() >> 20,
        size >> 20
    );
}
