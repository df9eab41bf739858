//! `POST /api/import` with real exports of other apps, read where they are
//! (`../shared/data/imports/`, never copied here): each note made once with its title,
//! text, tasks, tags, times, pin and files; the same export again adds nothing.

use std::io::Write;
use std::path::{Path, PathBuf};

use app::api::{FileList, ImportReport, Note, NotesPage};
use zip::write::SimpleFileOptions;

use crate::helpers::{TestApp, spawn_app};

/// The folder of real exports made elsewhere (see each SOURCE.md there).
pub fn samples() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/imports");
    assert!(
        dir.is_dir(),
        "the real exports are missing: expected them at {} (../shared beside the clone)",
        dir.display()
    );
    dir
}

/// A zip of `folder`'s files (recursively, dot folders too), each under `prefix` + its
/// path in the folder.
pub fn zip_folder(folder: &Path, prefix: &str) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default();
    let mut stack = vec![folder.to_owned()];
    let mut files = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n != "SOURCE.md") {
                files.push(path);
            }
        }
    }
    files.sort();
    for path in files {
        let name = path
            .strip_prefix(folder)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        zip.start_file(format!("{prefix}{name}"), options).unwrap();
        zip.write_all(&std::fs::read(&path).unwrap()).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

pub async fn import(app: &TestApp, bytes: Vec<u8>) -> ImportReport {
    let answer = app
        .client
        .post(app.url("/api/import"))
        .body(bytes)
        .send()
        .await
        .unwrap();
    let status = answer.status();
    let text = answer.text().await.unwrap();
    assert_eq!(status, 200, "{text}");
    serde_json::from_str(&text).unwrap()
}

/// Every note of the person, pinned first.
pub async fn all_notes(app: &TestApp) -> Vec<Note> {
    let mut notes = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("/api/notes?limit=200&cursor={c}"),
            None => "/api/notes?limit=200".to_owned(),
        };
        let page: NotesPage = app.get(&path).await.json().await.unwrap();
        notes.extend(page.notes);
        match page.next {
            Some(next) => cursor = Some(next),
            None => return notes,
        }
    }
}

fn titled<'a>(notes: &'a [Note], title: &str) -> &'a Note {
    notes
        .iter()
        .find(|n| n.title == title)
        .unwrap_or_else(|| panic!("no note titled {title:?} among {:?}", titles(notes)))
}

fn titles(notes: &[Note]) -> Vec<&str> {
    notes.iter().map(|n| n.title.as_str()).collect()
}

async fn files(app: &TestApp) -> FileList {
    app.get("/api/files").await.json().await.unwrap()
}

/// The same export imported a second time makes nothing: every note is there already.
async fn second_import_adds_nothing(app: &TestApp, bytes: Vec<u8>, first: &ImportReport) {
    let notes = app.note_count().await;
    let again = import(app, bytes).await;
    assert_eq!(again.imported, 0, "{again:?}");
    assert_eq!(
        again.already_there,
        first.imported + first.already_there,
        "{again:?}"
    );
    assert_eq!(again.files, 0, "no file stored twice: {again:?}");
    assert_eq!(app.note_count().await, notes, "no note made twice");
}

#[tokio::test]
async fn a_keep_takeout_comes_in_with_lists_labels_pins_archive_and_times() {
    let app = spawn_app().await;
    let bytes = zip_folder(&samples().join("keep"), "Takeout/Keep/");

    let report = import(&app, bytes.clone()).await;
    assert_eq!(report.kind, "keep");
    // The four notes, and the one in the notesnook takeout zip is not in this folder zip.
    assert_eq!((report.imported, report.skipped), (4, 0), "{report:?}");
    let notes = all_notes(&app).await;
    let list = titled(&notes, "Checklist note");
    assert!(list.body.contains("- [ ] First item"), "{}", list.body);
    assert!(list.body.contains("- [ ] Third item"), "{}", list.body);
    assert_eq!(list.created_at, "2023-07-26T11:58:12.755Z");
    assert_eq!(list.updated_at, "2023-08-01T05:05:08.447Z");
    assert!(
        report
            .tags_renamed
            .iter()
            .any(|m| m.from == "labelWith!'@:$\"Symbols"),
        "the label a tag cannot hold is renamed and said so: {:?}",
        report.tags_renamed
    );
    assert!(titled(&notes, "Pinned text note").pinned);
    assert_eq!(
        notes[0].title, "Pinned text note",
        "pinned notes list first"
    );
    let archived = titled(&notes, "Archived note");
    assert!(
        archived.tags.contains(&"archived".to_owned()),
        "{:?}",
        archived.tags
    );
    assert!(archived.trashed_at.is_none(), "archived is never the trash");
    let labelled = titled(&notes, "Image, label, and body text note");
    assert!(
        labelled.tags.contains(&"label".to_owned()),
        "{:?}",
        labelled.tags
    );
    assert!(labelled.body.contains("This is the body text."));
    assert!(
        labelled.body.contains("1690514572032.76900194.png"),
        "the attachment missing from the export is named: {}",
        labelled.body
    );

    second_import_adds_nothing(&app, bytes, &report).await;
}

#[tokio::test]
async fn evernote_checklists_become_tasks_and_its_images_files() {
    let app = spawn_app().await;
    let dir = samples().join("enex");
    let checklist = import(
        &app,
        std::fs::read(dir.join("test-checklist.enex")).unwrap(),
    )
    .await;
    assert_eq!(
        (checklist.kind.as_str(), checklist.imported),
        ("evernote", 1)
    );
    let todo = import(
        &app,
        std::fs::read(dir.join("test-empty-en-todo.enex")).unwrap(),
    )
    .await;
    assert_eq!(todo.imported, 1);
    let notes = all_notes(&app).await;
    let tasks: usize = notes
        .iter()
        .map(|n| {
            n.body
                .lines()
                .filter(|l| l.trim_start().starts_with("- [x]"))
                .count()
        })
        .sum();
    assert!(tasks >= 2, "ticked items became ticked tasks: {notes:#?}");
    assert!(
        notes
            .iter()
            .all(|n| !n.body.contains("en-todo") && !n.body.contains("<li")),
        "no Evernote markup left: {notes:#?}"
    );

    let image = std::fs::read(dir.join("test-image-dataUrl.enex")).unwrap();
    let report = import(&app, image.clone()).await;
    assert!(report.files >= 1, "{report:?}");
    let stored = files(&app).await;
    let png = stored
        .files
        .iter()
        .find(|f| f.content_type == "image/png")
        .expect("the PNG resource is a file");
    let clip = all_notes(&app)
        .await
        .into_iter()
        .find(|n| n.body.contains(&format!("/files/{}", png.sha256)))
        .expect("the note shows the image");
    let bytes = app
        .get(&format!("/files/{}", png.sha256))
        .await
        .bytes()
        .await
        .unwrap();
    assert_eq!(bytes.len() as u64, png.size);
    assert!(clip.body.contains(&format!("](/files/{})", png.sha256)));

    second_import_adds_nothing(&app, image, &report).await;
}

#[tokio::test]
async fn standard_notes_backups_keep_tags_pins_and_archive_and_leave_nothing_doubled() {
    let app = spawn_app().await;
    let dir = samples().join("standardnotes");
    let zip =
        std::fs::read(dir.join("Standard Notes Backup - Fri Jan 14 2022 10_31_29 GMT+0500.zip"))
            .unwrap();
    let report = import(&app, zip.clone()).await;
    assert_eq!(report.kind, "standard_notes");
    assert!(
        report.imported + report.skipped + report.failed.len() >= 60,
        "{report:?}"
    );
    let notes = all_notes(&app).await;
    assert_eq!(notes.iter().filter(|n| n.pinned).count(), 4, "four pinned");
    assert_eq!(
        notes
            .iter()
            .filter(|n| n.tags.contains(&"archived".to_owned()))
            .count(),
        3,
        "three archived"
    );
    assert!(
        notes.iter().any(|n| n.tags.len() > 1),
        "tags came with the notes"
    );
    assert!(
        notes
            .iter()
            .all(|n| !n.body.contains("<p>") && !n.body.contains("<div")),
        "HTML bodies became Markdown"
    );
    second_import_adds_nothing(&app, zip, &report).await;

    let json = std::fs::read(
        dir.join("extracted/Standard Notes Backup - Tue Aug 29 2023 08_51_11 GMT-0700")
            .join("Standard Notes Backup and Import File.txt"),
    )
    .unwrap();
    let plain = import(&app, json).await;
    assert_eq!(
        (plain.kind.as_str(), plain.imported),
        ("standard_notes", 6),
        "{plain:?}"
    );
}

#[tokio::test]
async fn a_joplin_export_brings_its_notebooks_as_tags_and_its_images_as_files() {
    let app = spawn_app().await;
    let zip = zip_folder(&samples().join("joplin/sync-target-snapshot-3-normal"), "");
    let report = import(&app, zip.clone()).await;
    assert_eq!(
        (report.kind.as_str(), report.imported),
        ("joplin", 5),
        "{report:?}"
    );
    // Its two resources hold the same bytes: one file, shown by both notes.
    assert_eq!(report.files, 1, "{report:?}");
    let notes = all_notes(&app).await;
    let with_image = notes
        .iter()
        .filter(|n| n.body.contains("](/files/"))
        .count();
    assert!(with_image >= 1, "a note shows its image: {notes:#?}");
    assert!(
        notes.iter().all(|n| !n.body.contains("](:/")),
        "no Joplin links left"
    );
    assert!(
        notes.iter().all(|n| !n.tags.is_empty()),
        "each note has its notebook"
    );
    second_import_adds_nothing(&app, zip, &report).await;
}

#[tokio::test]
async fn a_markdown_vault_keeps_front_matter_tags_and_embeds_its_files() {
    let app = spawn_app().await;
    let zip = zip_folder(&samples().join("markdown"), "vault/");
    let report = import(&app, zip.clone()).await;
    assert_eq!(report.kind, "markdown");
    assert_eq!(report.imported, 8, "{report:?}");
    let notes = all_notes(&app).await;
    let embeds = notes
        .iter()
        .find(|n| n.body.contains("](/files/"))
        .expect("a note shows an embedded file");
    assert!(!embeds.body.contains("![[white.png]]"), "{}", embeds.body);
    assert!(report.files >= 2, "{report:?}");
    assert!(
        notes.iter().any(|n| n.tags.contains(&"books".to_owned())),
        "front matter and inline tags: {notes:#?}"
    );
    assert!(
        notes.iter().all(|n| !n.body.starts_with("---")),
        "front matter is not text"
    );
    second_import_adds_nothing(&app, zip, &report).await;
}
