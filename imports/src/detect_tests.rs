use std::path::Path;

use super::*;
use crate::test_support::{entries_of, samples, write_tar, write_zip};

fn kind_of_zip(entries: &[(String, Vec<u8>)]) -> Option<Kind> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("export.bin");
    write_zip(&path, entries);
    detect(&path).unwrap()
}

fn kind_of_bytes(bytes: &[u8]) -> Option<Kind> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("export.bin");
    std::fs::write(&path, bytes).unwrap();
    detect(&path).unwrap()
}

fn keep_json_entries() -> Vec<(String, Vec<u8>)> {
    entries_of(&samples("keep"), "Takeout/Keep/")
        .into_iter()
        .filter(|(name, _)| name.ends_with(".json"))
        .collect()
}

#[test]
fn a_takeout_zip_of_keep_notes_is_keep() {
    let takeout = samples("keep").join("takeout-20260605T094613Z-3-001.zip");
    assert_eq!(detect(&takeout).unwrap(), Some(Kind::Keep));
    assert_eq!(kind_of_zip(&keep_json_entries()), Some(Kind::Keep));
}

#[test]
fn every_enex_sample_is_evernote() {
    for (name, path) in crate::test_support::files_under(&samples("enex")) {
        if name.ends_with(".enex") {
            assert_eq!(detect(&path).unwrap(), Some(Kind::Evernote), "{name}");
        }
    }
}

#[test]
fn standard_notes_backups_are_told_as_json_and_as_zips() {
    let folder = samples("standardnotes");
    let mut seen = 0;
    for (name, path) in crate::test_support::files_under(&folder) {
        if name.ends_with(".zip") || name.ends_with(".txt") {
            assert_eq!(detect(&path).unwrap(), Some(Kind::StandardNotes), "{name}");
            seen += 1;
        }
    }
    assert_eq!(seen, 5, "three zips and two unpacked backups");
}

#[test]
fn a_joplin_sync_folder_zipped_or_tarred_is_joplin() {
    let folder = samples("joplin").join("sync-target-snapshot-3-normal");
    let entries = entries_of(&folder, "");
    assert_eq!(kind_of_zip(&entries), Some(Kind::Joplin));
    let items_only: Vec<_> = entries
        .iter()
        .filter(|(n, _)| !n.starts_with(".resource/"))
        .cloned()
        .collect();
    assert_eq!(kind_of_zip(&items_only), Some(Kind::Joplin));

    let dir = tempfile::tempdir().unwrap();
    let jex = dir.path().join("export.jex");
    write_tar(&jex, &entries);
    assert_eq!(detect(&jex).unwrap(), Some(Kind::Joplin));
}

#[test]
fn a_zip_of_markdown_files_is_a_markdown_folder() {
    let markdown = samples("markdown");
    assert_eq!(
        kind_of_zip(&entries_of(&markdown, "vault/")),
        Some(Kind::Markdown)
    );
    let joplin_full = std::fs::read(samples("joplin").join("full.md")).unwrap();
    assert_eq!(
        kind_of_zip(&[("full.md".into(), joplin_full)]),
        Some(Kind::Markdown),
        "front matter is not Joplin's item format"
    );
}

#[test]
fn oncenote_s_own_export_is_oncenote() {
    let notes = br#"{"format":"oncenote-export","version":2,"exported_at":"2026-01-01T00:00:00Z","notes":[]}"#;
    let entries = vec![
        ("notes.json".to_string(), notes.to_vec()),
        ("notes/0001-a.md".to_string(), b"# a".to_vec()),
    ];
    assert_eq!(kind_of_zip(&entries), Some(Kind::Oncenote));
    let other = vec![("notes.json".to_string(), br#"{"format":"other"}"#.to_vec())];
    assert_eq!(kind_of_zip(&other), None);
}

#[test]
fn pictures_noise_and_nothing_are_no_kind() {
    let png =
        std::fs::read(samples("markdown").join("obsidian-export/main-samples/white.png")).unwrap();
    assert_eq!(kind_of_bytes(&png), None);
    let noise: Vec<u8> = (0u32..70_000)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    assert_eq!(kind_of_bytes(&noise), None);
    assert_eq!(kind_of_bytes(b""), None);
    assert_eq!(kind_of_bytes(b"PK\x03\x04 broken zip"), None);
    assert_eq!(kind_of_bytes(br#"{"items": [], "other": 1}"#), None);
    assert_eq!(kind_of_zip(&[("photo.png".into(), png)]), None);
}

#[test]
fn a_standard_notes_json_is_told_from_its_first_keys_only() {
    let mut json = br#"  {"version":"004","items":["#.to_vec();
    json.extend(std::iter::repeat_n(b' ', 200_000));
    assert_eq!(kind_of_bytes(&json), Some(Kind::StandardNotes));
}

#[test]
fn evernote_is_told_past_the_declaration_and_doctype() {
    let xml = "\u{feff}<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE en-export SYSTEM \"http://xml.evernote.com/pub/evernote-export3.dtd\">\n<en-export>";
    assert_eq!(kind_of_bytes(xml.as_bytes()), Some(Kind::Evernote));
    assert_eq!(kind_of_bytes(b"<?xml version=\"1.0\"?><html>"), None);
}

#[test]
fn keep_needs_a_json_file_in_a_keep_folder() {
    assert!(is_keep_note("Takeout/Keep/a.json"));
    assert!(is_keep_note("Keep/a.json"));
    assert!(!is_keep_note("Takeout/Keep/a.html"));
    assert!(!is_keep_note("Takeout/NotKeep/a.json"));
    assert!(!Path::new("Keep.json").to_str().is_some_and(is_keep_note));
}
