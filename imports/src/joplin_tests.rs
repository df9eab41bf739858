use std::path::PathBuf;

use super::*;
use crate::test_support::{Event, Recorder, entries_of, samples, sha256_of, write_tar, write_zip};

const NOTE1: &str = "8436cd9c58824ca58ed146d7bd519dfd";
const NOTE5: &str = "264606b4634f4fe58dda0e58a0dc64d9";
const PHOTO1: &str = "b1947d6f70314ab180b343e90f1b4660";
const PHOTO5: &str = "933cf209b0094d43884c03149f034128";

fn snapshot() -> PathBuf {
    samples("joplin").join("sync-target-snapshot-3-normal")
}

/// The snapshot laid out as a RAW export or a `.jex` lays it: `resources/<id>.jpg`.
fn as_raw_export(entries: Vec<(String, Vec<u8>)>) -> Vec<(String, Vec<u8>)> {
    entries
        .into_iter()
        .map(|(name, bytes)| match name.strip_prefix(".resource/") {
            Some(id) => (format!("resources/{id}.jpg"), bytes),
            None => (name, bytes),
        })
        .collect()
}

fn read_zip(entries: &[(String, Vec<u8>)]) -> Recorder {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("joplin.zip");
    write_zip(&path, entries);
    let mut sink = Recorder::default();
    read(&path, &mut sink, &Limits::default()).unwrap();
    sink
}

fn read_tar(entries: &[(String, Vec<u8>)]) -> Recorder {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("export.jex");
    write_tar(&path, entries);
    let mut sink = Recorder::default();
    read(&path, &mut sink, &Limits::default()).unwrap();
    sink
}

fn sorted_tags(note: &ForeignNote) -> Vec<&str> {
    let mut tags: Vec<&str> = note.tags.iter().map(String::as_str).collect();
    tags.sort();
    tags
}

fn check_snapshot(sink: &Recorder) {
    let notes = sink.notes();
    let mut titles: Vec<&str> = notes.iter().map(|n| n.title.as_str()).collect();
    titles.sort();
    assert_eq!(titles, ["note1", "note2", "note3", "note4", "note5"]);
    assert_eq!(
        sorted_tags(sink.note("note1")),
        ["folder1/subFolder2", "tag1"]
    );
    assert_eq!(sorted_tags(sink.note("note2")), ["folder1/subFolder2"]);
    assert_eq!(sorted_tags(sink.note("note3")), ["folder1", "tag1", "tag2"]);
    assert_eq!(sorted_tags(sink.note("note4")), ["folder1", "tag2"]);
    assert_eq!(sorted_tags(sink.note("note5")), ["folder3", "tag2"]);

    let files = sink.files();
    assert_eq!(files.len(), 2);
    for (note, photo) in [("note1", PHOTO1), ("note5", PHOTO5)] {
        let bytes = std::fs::read(snapshot().join(".resource").join(photo)).unwrap();
        let sha = sha256_of(&snapshot().join(".resource").join(photo)).unwrap();
        assert!(
            files
                .iter()
                .any(|f| f.bytes == bytes && f.name == "photo.jpg")
        );
        assert_eq!(
            sink.note(note).body,
            format!("![photo.jpg](/files/{sha})"),
            "{note}"
        );
        assert!(
            files
                .iter()
                .all(|f| f.content_type.as_deref() == Some("image/jpeg"))
        );
    }
}

#[test]
fn a_zipped_sync_folder_gives_five_notes_with_folder_tags_tags_and_photos() {
    check_snapshot(&read_zip(&entries_of(&snapshot(), "")));
}

#[test]
fn a_jex_tar_gives_the_same_notes_and_photos() {
    check_snapshot(&read_tar(&as_raw_export(entries_of(&snapshot(), ""))));
    check_snapshot(&read_tar(&entries_of(&snapshot(), "")));
}

#[test]
fn a_zipped_raw_export_under_a_folder_reads_its_resources_folder() {
    check_snapshot(&read_zip(&as_raw_export(entries_of(
        &snapshot(),
        "export/",
    ))));
}

#[test]
fn each_photo_is_handed_over_before_the_note_that_shows_it() {
    let sink = read_zip(&entries_of(&snapshot(), ""));
    for (note, photo) in [("note1", PHOTO1), ("note5", PHOTO5)] {
        let bytes = std::fs::read(snapshot().join(".resource").join(photo)).unwrap();
        let file_at = sink
            .events
            .iter()
            .position(|e| matches!(e, Event::File(f) if f.bytes == bytes))
            .unwrap();
        let note_at = sink
            .events
            .iter()
            .position(|e| matches!(e, Event::Note(n) if n.title == note))
            .unwrap();
        assert!(file_at < note_at, "{note}");
    }
}

#[test]
fn ids_and_the_user_s_times_carry_over() {
    let sink = read_zip(&entries_of(&snapshot(), ""));
    let note = sink.note("note1");
    assert_eq!(note.source_id, NOTE1);
    assert_eq!(
        note.created_at.unwrap().to_rfc3339(),
        "2021-08-07T17:03:33.592+00:00"
    );
    assert_eq!(
        note.updated_at.unwrap().to_rfc3339(),
        "2021-08-07T17:03:33.703+00:00"
    );
    assert_eq!(sink.note("note5").source_id, NOTE5);
}

/// The snapshot with note5 changed by `edit` (its text, as Joplin wrote it).
fn with_note5(edit: impl Fn(String) -> String) -> Vec<(String, Vec<u8>)> {
    entries_of(&snapshot(), "")
        .into_iter()
        .map(|(name, bytes)| {
            if name == format!("{NOTE5}.md") {
                let text = String::from_utf8(bytes).unwrap();
                (name, edit(text).into_bytes())
            } else {
                (name, bytes)
            }
        })
        .collect()
}

#[test]
fn a_completed_to_do_opens_with_a_ticked_task_item() {
    let sink = read_zip(&with_note5(|t| {
        t.replace("is_todo: 0", "is_todo: 1")
            .replace("todo_completed: 0", "todo_completed: 1628355813900")
    }));
    assert!(
        sink.note("note5")
            .body
            .starts_with("- [x] note5\n\n![photo.jpg](/files/"),
        "{}",
        sink.note("note5").body
    );
    let open = read_zip(&with_note5(|t| t.replace("is_todo: 0", "is_todo: 1")));
    assert!(open.note("note5").body.starts_with("- [ ] note5\n\n"));
}

#[test]
fn a_note_in_joplin_s_trash_is_skipped_and_its_photo_not_taken() {
    let sink = read_zip(&with_note5(|t| {
        t.replace("is_shared: 0", "deleted_time: 1628355814000\nis_shared: 0")
    }));
    assert_eq!(sink.skipped(), vec![("note5", SkipReason::Deleted)]);
    assert_eq!(sink.notes().len(), 4);
    assert_eq!(sink.files().len(), 1);
}

#[test]
fn a_photo_shown_twice_is_handed_over_once_and_a_missing_one_is_named() {
    let twice = with_note5(|t| {
        t.replace(
            &format!("![photo.jpg](:/{PHOTO5})"),
            &format!(
                "![photo.jpg](:/{PHOTO5}) and [again](:/{PHOTO5}) and [note one](:/{NOTE1})\n\n\
                 `![photo.jpg](:/{PHOTO5})`"
            ),
        )
    });
    let sink = read_zip(&twice);
    assert_eq!(sink.files().len(), 2);
    let sha = sha256_of(&snapshot().join(".resource").join(PHOTO5)).unwrap();
    assert_eq!(
        sink.note("note5").body,
        format!(
            "![photo.jpg](/files/{sha}) and ![again](/files/{sha}) and [note one](:/{NOTE1})\n\n\
             `![photo.jpg](:/{PHOTO5})`"
        )
    );

    let without_bytes: Vec<_> = entries_of(&snapshot(), "")
        .into_iter()
        .filter(|(n, _)| !n.ends_with(PHOTO5))
        .collect();
    let sink = read_zip(&without_bytes);
    assert_eq!(
        sink.note("note5").body,
        "(attachment photo.jpg was not in the export)"
    );
}

#[test]
fn an_encrypted_note_is_skipped_and_the_rest_imported() {
    let sink = read_zip(&with_note5(|t| {
        t.replace("encryption_applied: 0", "encryption_applied: 1")
    }));
    assert_eq!(sink.notes().len(), 4);
    assert!(sink.notes().iter().all(|n| n.title != "note5"));
    assert_eq!(
        sink.skipped(),
        [("note5", SkipReason::Encrypted)],
        "named and counted in the report"
    );
}

#[test]
fn tags_come_in_the_same_order_whatever_the_archive_s_order() {
    let forward = entries_of(&snapshot(), "");
    let mut backward = forward.clone();
    backward.reverse();
    let tags = |entries: &[(String, Vec<u8>)]| read_zip(entries).note("note3").tags.clone();
    assert_eq!(tags(&forward), ["folder1", "tag1", "tag2"]);
    assert_eq!(tags(&backward), ["folder1", "tag1", "tag2"]);
}

#[test]
fn more_notes_than_the_limit_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("joplin.zip");
    write_zip(&path, &entries_of(&snapshot(), ""));
    let limits = Limits {
        notes: 4,
        ..Limits::default()
    };
    let result = read(&path, &mut Recorder::default(), &limits);
    assert!(matches!(result, Err(ReadError::TooLarge(_))));
}

#[test]
fn an_html_note_becomes_markdown_with_its_photo_as_a_file() {
    let sink = read_zip(&with_note5(|t| {
        t.replace("markup_language: 1", "markup_language: 2")
            .replace(
                "![photo.jpg](:/933cf209b0094d43884c03149f034128)",
                "<p>A <b>clipped</b> page</p><ul><li>one</li></ul>\
             <img alt=\"photo.jpg\" src=\":/933cf209b0094d43884c03149f034128\">",
            )
    }));
    let body = &sink.note("note5").body;
    assert!(body.contains("A **clipped** page"), "{body}");
    assert!(body.contains("- one"), "{body}");
    assert!(body.contains("![photo.jpg](/files/"), "{body}");
    assert!(!body.contains("<p>"), "{body}");
}
