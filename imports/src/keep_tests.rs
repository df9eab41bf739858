use std::path::PathBuf;

use super::*;
use crate::test_support::{Event, Recorder, entries_of, samples, write_zip};

fn keep_entries() -> Vec<(String, Vec<u8>)> {
    entries_of(&samples("keep"), "Takeout/Keep/")
        .into_iter()
        .filter(|(name, _)| name.ends_with(".json"))
        .collect()
}

fn read_zip(entries: &[(String, Vec<u8>)], limits: &Limits) -> Result<Recorder, ReadError> {
    let dir = tempfile::tempdir().unwrap();
    let path: PathBuf = dir.path().join("takeout.zip");
    write_zip(&path, entries);
    let mut sink = Recorder::default();
    read(&path, &mut sink, limits)?;
    Ok(sink)
}

fn sample_json(name: &str) -> String {
    std::fs::read_to_string(samples("keep").join(name)).unwrap()
}

#[test]
fn a_checklist_becomes_task_items_and_its_label_a_tag() {
    let sink = read_zip(&keep_entries(), &Limits::default()).unwrap();
    let note = sink.note("Checklist note");
    assert_eq!(
        note.body,
        "- [ ] First item\n- [ ] Second item and #hashtag\n- [ ] First sub-item\n\
         - [ ] Second sub-item and #labelWith!'@:$\"Symbols\n- [ ] Third item"
    );
    assert_eq!(note.tags, vec!["labelWith!'@:$\"Symbols".to_string()]);
    assert_eq!(note.source_id, "created:1690372692755000");
}

#[test]
fn a_renamed_note_in_another_takeout_keeps_its_id_and_twins_created_together_differ() {
    let ids = |entries: &[(String, Vec<u8>)]| -> Vec<String> {
        let mut ids: Vec<String> = read_zip(entries, &Limits::default())
            .unwrap()
            .notes()
            .iter()
            .map(|n| n.source_id.clone())
            .collect();
        ids.sort();
        ids
    };
    let first = keep_entries();
    let moved: Vec<_> = first
        .iter()
        .map(|(name, bytes)| {
            let file = name.rsplit('/').next().unwrap();
            (format!("Takeout 2/Keep/renamed {file}"), bytes.clone())
        })
        .collect();
    assert_eq!(ids(&first), ids(&moved));
    let checklist = sample_json("Checklist note.json").into_bytes();
    let twins = vec![
        ("Takeout/Keep/One.json".to_owned(), checklist.clone()),
        ("Takeout/Keep/Two.json".to_owned(), checklist),
    ];
    let twin_ids = ids(&twins);
    assert_eq!(twin_ids.len(), 2);
    assert_ne!(twin_ids[0], twin_ids[1]);
}

#[test]
fn times_are_read_as_microseconds() {
    let sink = read_zip(&keep_entries(), &Limits::default()).unwrap();
    let note = sink.note("Checklist note");
    assert_eq!(
        note.created_at.unwrap().to_rfc3339(),
        "2023-07-26T11:58:12.755+00:00"
    );
    assert_eq!(
        note.updated_at.unwrap().to_rfc3339(),
        "2023-08-01T05:05:08.447+00:00"
    );
}

#[test]
fn pinned_and_archived_carry_over() {
    let sink = read_zip(&keep_entries(), &Limits::default()).unwrap();
    assert!(sink.note("Pinned text note").pinned);
    assert!(!sink.note("Pinned text note").archived);
    assert!(sink.note("Archived note").archived);
    assert_eq!(
        sink.note("Archived note").body,
        "This note was archived in Google Keep before export."
    );
    assert_eq!(sink.notes().len(), 4);
}

#[test]
fn an_attachment_missing_from_the_zip_is_named_in_the_text() {
    let sink = read_zip(&keep_entries(), &Limits::default()).unwrap();
    let note = sink.note("Image, label, and body text note");
    assert_eq!(
        note.body,
        "This is the body text.\n\n(attachment 1690514572032.76900194.png was not in the export)"
    );
    assert_eq!(note.tags, vec!["label".to_string()]);
    assert!(sink.files().is_empty());
}

#[test]
fn an_attachment_in_the_zip_is_handed_over_before_its_note_and_shown() {
    let png =
        std::fs::read(samples("markdown").join("obsidian-export/main-samples/white.png")).unwrap();
    let mut entries = keep_entries();
    entries.push((
        "Takeout/Keep/1690514572032.76900194.png".into(),
        png.clone(),
    ));
    let sink = read_zip(&entries, &Limits::default()).unwrap();
    let file_at = sink
        .events
        .iter()
        .position(|e| matches!(e, Event::File(_)))
        .unwrap();
    let note_at = sink
        .events
        .iter()
        .position(|e| matches!(e, Event::Note(n) if n.title == "Image, label, and body text note"))
        .unwrap();
    assert!(file_at < note_at);
    let file = &sink.files()[0];
    assert_eq!(file.bytes, png);
    assert_eq!(file.name, "1690514572032.76900194.png");
    assert_eq!(file.content_type.as_deref(), Some("image/png"));
    assert_eq!(
        sink.note("Image, label, and body text note").body,
        format!(
            "This is the body text.\n\n![1690514572032.76900194.png](/files/{})",
            file.sha256
        )
    );
}

#[test]
fn the_takeout_sample_gives_its_one_note_from_the_json_not_the_html() {
    let path = samples("keep").join("takeout-20260605T094613Z-3-001.zip");
    let mut sink = Recorder::default();
    read(&path, &mut sink, &Limits::default()).unwrap();
    assert_eq!(sink.notes().len(), 1);
    let note = sink.note("note");
    assert_eq!(note.body, "hello\nworld\n\nnew para\n\nmore text");
    assert_eq!(
        note.source_id,
        format!("created:{}", note.created_at.unwrap().timestamp_micros())
    );
}

#[test]
fn a_trashed_note_is_skipped_and_an_untitled_one_is_named_after_its_file() {
    let trashed =
        sample_json("Pinned text note.json").replace("\"isTrashed\":false", "\"isTrashed\":true");
    let untitled =
        sample_json("Archived note.json").replace("\"title\":\"Archived note\"", "\"title\":\"\"");
    let entries = vec![
        (
            "Takeout/Keep/Pinned text note.json".to_string(),
            trashed.into_bytes(),
        ),
        (
            "Takeout/Keep/2023-07-28T10_00_00.000Z.json".to_string(),
            untitled.into_bytes(),
        ),
        (
            "Takeout/Keep/2023-07-28T10_00_00.000Z.html".to_string(),
            b"<html>".to_vec(),
        ),
    ];
    let sink = read_zip(&entries, &Limits::default()).unwrap();
    assert_eq!(
        sink.skipped(),
        vec![("Pinned text note", SkipReason::Trashed)]
    );
    let notes = sink.notes();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].name, "2023-07-28T10_00_00.000Z");
    assert_eq!(notes[0].title, "");
}

#[test]
fn a_note_json_past_the_limit_is_refused_not_read() {
    let limits = Limits {
        note_bytes: 100,
        ..Limits::default()
    };
    assert!(matches!(
        read_zip(&keep_entries(), &limits),
        Err(ReadError::TooLarge(_))
    ));
    let few = Limits {
        notes: 3,
        ..Limits::default()
    };
    assert!(matches!(
        read_zip(&keep_entries(), &few),
        Err(ReadError::TooLarge(_))
    ));
}

#[test]
fn a_json_of_another_shape_is_malformed_with_its_name() {
    let entries = vec![("Takeout/Keep/x.json".to_string(), b"[1, 2]".to_vec())];
    match read_zip(&entries, &Limits::default()) {
        Err(ReadError::Malformed(why)) => assert!(why.contains("Takeout/Keep/x.json"), "{why}"),
        other => panic!(
            "expected Malformed, got {:?}",
            other.map(|s| s.events.len())
        ),
    }
}

#[test]
fn a_link_annotation_keeps_its_address_whole_and_its_title_cannot_break_out() {
    let note = r#"{"title":"Links","textContent":"see","createdTimestampUsec":1,
        "annotations":[{"title":"A `b` [c] \\d","url":"https://e.org/a b)c\\d<e>"}]}"#;
    let entries = vec![(
        "Takeout/Keep/Links.json".to_owned(),
        note.as_bytes().to_vec(),
    )];
    let sink = read_zip(&entries, &Limits::default()).unwrap();
    assert_eq!(
        sink.note("Links").body,
        "see\n\n[A  b   c   d](<https://e.org/a b)c%5Cd%3Ce%3E>)"
    );
}
