use std::io::Write;
use std::path::PathBuf;

use super::*;
use crate::test_sink::{RecordingSink, cuts, garbles, sample};

const Y2022: &str = "Standard Notes Backup - Fri Jan 14 2022 10_31_29 GMT+0500.zip";
const Y2023: &str = "Standard Notes Backup - Tue Aug 29 2023 08_51_11 GMT-0700.zip";
const CUSTOM: &str = "Standard Notes Backup and Import File-custom.zip";
const ZIPS: [&str; 3] = [Y2022, Y2023, CUSTOM];

fn read_path(path: &Path, limits: &Limits) -> (Result<(), ReadError>, RecordingSink) {
    let mut sink = RecordingSink::default();
    let result = read(path, &mut sink, limits);
    (result, sink)
}

fn read_sample(name: &str) -> RecordingSink {
    let (result, sink) = read_path(&sample("standardnotes", name), &Limits::default());
    result.unwrap();
    sink
}

/// A backup written to a temporary folder (kept alive with the path).
fn backup_file(bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("backup.txt");
    std::fs::File::create(&path)
        .unwrap()
        .write_all(bytes)
        .unwrap();
    (dir, path)
}

fn read_json(json: &str) -> (Result<(), ReadError>, RecordingSink) {
    let (_dir, path) = backup_file(json.as_bytes());
    read_path(&path, &Limits::default())
}

fn time(text: &str) -> Option<DateTime<Utc>> {
    Some(DateTime::parse_from_rfc3339(text).unwrap().to_utc())
}

#[test]
fn the_2022_backup_gives_63_notes_with_4_pinned_and_3_archived() {
    let sink = read_sample(Y2022);
    assert_eq!(sink.notes.len(), 63);
    assert!(sink.skipped.is_empty());
    assert_eq!(sink.notes.iter().filter(|n| n.pinned).count(), 4);
    assert_eq!(sink.notes.iter().filter(|n| n.archived).count(), 3);
    assert!(sink.note("Good-humored inflexibility").pinned);
    assert!(sink.note("Service password").archived);
    assert!(sink.files.is_empty());
}

#[test]
fn dotted_tags_become_nested_tags() {
    let sink = read_sample(Y2022);
    assert_eq!(
        sink.note("Idea for todo").tags,
        ["business", "business/finance"]
    );
    assert_eq!(sink.note("Python code").tags, ["codebox", "codebox/python"]);
    assert_eq!(sink.note("Notes on vingar").tags, ["food", "food/recipes"]);
    assert!(sink.note("Master Todo").tags.is_empty());
    let mut names: Vec<&str> = sink
        .notes
        .iter()
        .flat_map(|n| n.tags.iter().map(String::as_str))
        .collect();
    names.sort_unstable();
    names.dedup();
    // 26 tags, of which the 6 under art.* and Archived.* and Big name no note.
    assert_eq!(names.len(), 20, "{names:?}");
}

#[test]
fn parent_references_nest_tags_too() {
    let json = r#"{"version":"004","items":[
        {"uuid":"t1","content_type":"Tag","content":{"title":"business","references":[]}},
        {"uuid":"t2","content_type":"Tag","content":{"title":"finance","references":[
            {"uuid":"t1","content_type":"Tag","reference_type":"TagToParentTag"},
            {"uuid":"n1","content_type":"Note"}]}},
        {"uuid":"n1","content_type":"Note","content":{"title":"Budget","text":"x","references":[]}}
    ]}"#;
    let (result, sink) = read_json(json);
    result.unwrap();
    assert_eq!(sink.note("Budget").tags, ["business/finance"]);
}

#[test]
fn html_bodies_become_markdown_and_markdown_bodies_stay() {
    let sink = read_sample(Y2022);
    let project = &sink.note("Project Notes").body;
    assert!(
        project.starts_with("### **The Device Ready**\n\nTo antiquated TV"),
        "{project}"
    );
    assert!(
        !project.contains("<p>") && !project.contains("<font"),
        "{project}"
    );
    let android = &sink.note("Brainstorm with Android").body;
    assert!(
        android.starts_with("To allows users to brainstorm with Android"),
        "{android}"
    );
    assert!(
        android.contains("**Tools, its and I believe that Twitter is**"),
        "{android}"
    );
    let markdown = &sink.note("Companies need to develop all five senses").body;
    assert!(
        markdown.starts_with("## Apps for and, Twitter.\n\nIs the way"),
        "{markdown}"
    );
    let todo = &sink.note("Master Todo").body;
    assert!(todo.starts_with("- [ ] UIs separately"), "{todo}");
}

#[test]
fn code_editor_notes_become_code_blocks() {
    let sink = read_sample(Y2022);
    assert_eq!(sink.note("Note 57").body, "```\n# Hello World\n```");
    assert!(
        sink.note("CSS styles")
            .body
            .starts_with("```\n/* Some example CSS */")
    );
}

#[test]
fn times_come_from_the_microsecond_timestamps_else_the_iso_text() {
    let sink = read_sample(Y2023);
    let ithaka = sink.note("Ithaka");
    assert_eq!(ithaka.created_at, time("2023-08-29T15:47:49.952Z"));
    assert_eq!(ithaka.updated_at, time("2023-08-29T15:47:58.654544Z"));
    let sink = read_sample(Y2022);
    let todo = sink.note("Idea for todo");
    assert_eq!(todo.created_at, time("2017-04-29T15:41:29.309Z"));
    assert_eq!(todo.updated_at, time("2020-07-14T16:48:35.217Z"));
    // Its server time is the epoch: the app's own change time stands in.
    assert_eq!(
        sink.note("Note 57").updated_at,
        time("2022-01-13T08:44:54.868Z")
    );
}

#[test]
fn the_2023_backup_keeps_curly_quotes_and_its_two_tags() {
    let sink = read_sample(Y2023);
    assert_eq!(sink.notes.len(), 6);
    let stone = &sink.note("Shoulder to the Stone").body;
    assert!(
        stone.starts_with("“It is neither our position nor our circumstances"),
        "{stone}"
    );
    assert!(stone.ends_with("— Robert F. Kennedy Jr."), "{stone}");
    let tagged = |tag: &str| sink.notes.iter().filter(|n| n.tags == [tag]).count();
    assert_eq!((tagged("poems"), tagged("quotes")), (3, 3));
}

#[test]
fn the_custom_backup_has_one_czech_note_among_other_items() {
    let sink = read_sample(CUSTOM);
    assert_eq!(sink.notes.len(), 1);
    let note = sink.note("Nivovo-česneková pomazánka");
    assert_eq!(
        note.body,
        "4 stroužky česneku\n250g tvarohu\n180g jogurtu\n200g nivy\nOlivový olej"
    );
    assert_eq!(note.source_id, "b84c300c-530a-4aca-b299-b6b19f0ec641");
}

#[test]
fn the_json_itself_reads_as_the_zip_does() {
    let member = sample(
        "standardnotes",
        "extracted/Standard Notes Backup - Tue Aug 29 2023 08_51_11 GMT-0700/\
         Standard Notes Backup and Import File.txt",
    );
    let (result, from_json) = read_path(&member, &Limits::default());
    result.unwrap();
    let from_zip = read_sample(Y2023);
    assert_eq!(from_json.notes, from_zip.notes);
}

#[test]
fn reading_twice_gives_the_same_source_ids() {
    for name in ZIPS {
        let ids = |sink: RecordingSink| -> Vec<String> {
            sink.notes.into_iter().map(|n| n.source_id).collect()
        };
        assert_eq!(ids(read_sample(name)), ids(read_sample(name)), "{name}");
    }
}

#[test]
fn trashed_and_deleted_notes_are_skipped_and_duplicates_imported() {
    let json = r#"{"version":"004","items":[
        {"uuid":"a","content_type":"Note","content":{"title":"In the trash","text":"x","trashed":true}},
        {"uuid":"b","content_type":"Note","deleted":true},
        {"uuid":"c","content_type":"Note","duplicate_of":"d","content":{"title":"Copy","text":"y"}}
    ]}"#;
    let (result, sink) = read_json(json);
    result.unwrap();
    assert_eq!(
        sink.skipped,
        [
            ("In the trash".to_owned(), SkipReason::Trashed),
            ("Untitled note b".to_owned(), SkipReason::Deleted)
        ]
    );
    assert_eq!(sink.notes.len(), 1);
    assert_eq!(sink.notes[0].title, "Copy");
}

#[test]
fn a_rich_text_notes_inline_image_is_handed_over_before_the_note() {
    let json = r#"{"version":"004","items":[{"uuid":"r","content_type":"Note","content":{
        "title":"Pasted","noteType":"rich-text",
        "text":"<p>Here <img src=\"data:image/gif;base64,R0lGODlhAQABAAAAACw=\"></p>"}}]}"#;
    let (result, sink) = read_json(json);
    result.unwrap();
    assert_eq!(sink.files.len(), 1);
    assert!(sink.files[0].bytes.starts_with(b"GIF89a"));
    assert_eq!(
        sink.note("Pasted").body,
        format!("Here ![image.gif](/files/{})", sink.files[0].sha256)
    );
}

#[test]
fn a_super_note_becomes_markdown() {
    let json = r#"{"version":"004","items":[{"uuid":"s","content_type":"Note","content":{
        "title":"Super","noteType":"super","editorIdentifier":"com.standardnotes.super",
        "text":"{\"root\":{\"type\":\"root\",\"children\":[{\"type\":\"list\",\"listType\":\"check\",\"children\":[{\"type\":\"listitem\",\"checked\":true,\"children\":[{\"type\":\"text\",\"text\":\"milk\",\"format\":0}]}]}]}}"}}]}"#;
    let (result, sink) = read_json(json);
    result.unwrap();
    assert_eq!(sink.note("Super").body, "- [x] milk");
}

#[test]
fn an_encrypted_backup_says_to_export_a_decrypted_one() {
    let json = r#"{"version":"004","keyParams":{"identifier":"a@b.c","version":"004"},"items":[
        {"uuid":"a","content_type":"Note","content":"004:abcd:efgh:ijkl","enc_item_key":"004:x"}]}"#;
    let (result, sink) = read_json(json);
    assert!(
        matches!(&result, Err(ReadError::Malformed(m)) if m.contains("encrypted") && m.contains("decrypted")),
        "{result:?}"
    );
    assert!(sink.notes.is_empty());
}

#[test]
fn one_encrypted_note_in_a_decrypted_backup_is_skipped_and_the_rest_imported() {
    let json = r#"{"version":"004","items":[
        {"uuid":"a","content_type":"Note","content":"004:abcd:efgh:ijkl","enc_item_key":"004:x"},
        {"uuid":"b","content_type":"Note","content":{"title":"Plain","text":"y"}}
    ]}"#;
    let (result, sink) = read_json(json);
    result.unwrap();
    assert_eq!(
        sink.skipped,
        [("Untitled note a".to_owned(), SkipReason::Encrypted)]
    );
    assert_eq!(sink.notes.len(), 1);
    assert_eq!(sink.notes[0].title, "Plain");
}

#[test]
fn json_of_another_shape_is_malformed() {
    for json in [
        "{\"notes\":[]}",
        "[1,2]",
        "{\"items\":[",
        "{\"items\":[{\"uuid\":1}]}",
        "",
    ] {
        let (result, _) = read_json(json);
        assert!(
            matches!(result, Err(ReadError::Malformed(_))),
            "{json}: {result:?}"
        );
    }
}

#[test]
fn an_item_larger_than_the_note_limit_is_too_large() {
    let limits = Limits {
        note_bytes: 10_000,
        ..Limits::default()
    };
    let (result, _) = read_path(&sample("standardnotes", Y2023), &limits);
    assert!(matches!(result, Err(ReadError::TooLarge(_))), "{result:?}");
}

#[test]
fn more_notes_than_the_limit_is_too_large() {
    let limits = Limits {
        notes: 5,
        ..Limits::default()
    };
    let (result, _) = read_path(&sample("standardnotes", Y2023), &limits);
    assert!(matches!(result, Err(ReadError::TooLarge(_))), "{result:?}");
}

#[test]
fn every_sample_cut_anywhere_is_malformed_and_never_panics() {
    let member = sample(
        "standardnotes",
        "extracted/Standard Notes Backup and Import File-custom/\
         Standard Notes Backup and Import File.txt",
    );
    let mut inputs: Vec<PathBuf> = ZIPS.iter().map(|z| sample("standardnotes", z)).collect();
    inputs.push(member);
    for input in inputs {
        let bytes = std::fs::read(&input).unwrap();
        for cut in cuts(&bytes) {
            let (_dir, path) = backup_file(&cut);
            let (result, _) = read_path(&path, &Limits::default());
            assert!(
                matches!(result, Err(ReadError::Malformed(_))),
                "{}: a cut file is Malformed, not {result:?}",
                input.display()
            );
        }
    }
}

#[test]
fn every_sample_garbled_anywhere_never_panics() {
    for name in ZIPS {
        let bytes = std::fs::read(sample("standardnotes", name)).unwrap();
        for garbled in garbles(&bytes) {
            let (_dir, path) = backup_file(&garbled);
            // Some garbles still read (a byte of a stored file's name); none may panic.
            let _ = read_path(&path, &Limits::default());
        }
    }
}

#[test]
fn a_sink_that_stops_ends_the_reading() {
    let mut sink = RecordingSink {
        stop_after: Some(2),
        ..RecordingSink::default()
    };
    let result = read(
        &sample("standardnotes", Y2023),
        &mut sink,
        &Limits::default(),
    );
    assert!(matches!(result, Err(ReadError::Stopped)), "{result:?}");
    assert_eq!(sink.notes.len(), 2);
}

/// A backup of `notes` notes and one tag titled `title` that names each of them and
/// `phantoms` notes more that the backup does not hold.
fn tag_bomb(title: &str, notes: usize, phantoms: usize) -> String {
    // Short ids, as the review's file had: more references fit in one item.
    let uuid = |n: usize| format!("n{n}");
    let references: Vec<serde_json::Value> = (0..notes + phantoms)
        .map(|n| serde_json::json!({"uuid": uuid(n), "content_type": "Note"}))
        .collect();
    let mut items = vec![serde_json::json!({
        "uuid": "tag", "content_type": "Tag",
        "content": {"title": title, "references": references}
    })];
    items.extend((0..notes).map(|n| {
        serde_json::json!({
            "uuid": uuid(n), "content_type": "Note",
            "content": {"title": format!("Note {n}"), "text": "text", "references": []}
        })
    }));
    serde_json::json!({"version": "004", "items": items}).to_string()
}

#[test]
fn a_tag_s_long_title_is_cut_and_its_path_shared_by_every_note_it_names() {
    // The outside review's bomb, smaller: a 2 MB title named by 50,000 notes was once
    // 100 GB of copies of the title. Its path is now cut and kept once.
    let json = tag_bomb(&"t".repeat(1_900_000), 3, 50_000);
    assert!(
        json.len() < 4 << 20,
        "within one item's bound: {}",
        json.len()
    );
    let (result, sink) = read_json(&json);
    result.unwrap();
    assert_eq!(sink.notes.len(), 3);
    for note in &sink.notes {
        assert_eq!(note.tags, ["t".repeat(crate::names::TAG_KEPT_CHARS)]);
    }
}

#[test]
fn what_the_first_pass_keeps_past_its_byte_budget_is_too_large() {
    // Tags of long ids: each reference counted by its bytes, so a backup of forged ids
    // stops at the budget instead of growing with the file.
    let id = "x".repeat(1 << 20);
    let tags: Vec<serde_json::Value> = (0..70)
        .map(|n| {
            serde_json::json!({
                "uuid": format!("tag-{n}"), "content_type": "Tag",
                "content": {"title": "t", "references": [{"uuid": id, "content_type": "Note"}]}
            })
        })
        .collect();
    let json = serde_json::json!({"version": "004", "items": tags}).to_string();
    let (result, _) = read_json(&json);
    assert!(
        matches!(&result, Err(ReadError::TooLarge(m)) if m.contains("to remember")),
        "{result:?}"
    );
}

#[test]
fn a_note_named_by_two_tags_of_one_title_has_the_tag_once() {
    let json = r#"{"version":"004","items":[
        {"uuid":"t1","content_type":"Tag","content":{"title":"Work","references":[{"uuid":"n","content_type":"Note"}]}},
        {"uuid":"t2","content_type":"Tag","content":{"title":"Work","references":[{"uuid":"n","content_type":"Note"}]}},
        {"uuid":"n","content_type":"Note","content":{"title":"N","text":"x","references":[]}}
    ]}"#;
    let (result, sink) = read_json(json);
    result.unwrap();
    assert_eq!(sink.notes[0].tags, ["Work"]);
}
