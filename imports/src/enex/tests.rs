use std::io::Cursor;

use md5::{Digest, Md5};

use super::*;
use crate::test_sink::{RecordingSink, cuts, garbles, sample};

const SAMPLES: [&str; 5] = [
    "test-checklist.enex",
    "test-empty-en-todo.enex",
    "test-image-dataUrl.enex",
    "test-invalid-tags.enex",
    "test-links.enex",
];

fn read_sample(name: &str) -> RecordingSink {
    let mut sink = RecordingSink::default();
    read(&sample("enex", name), &mut sink, &Limits::default()).unwrap();
    sink
}

/// Reads an export given as text (written where the reader spools its files).
fn read_text(xml: &str, limits: &Limits) -> (Result<(), ReadError>, RecordingSink) {
    let mut sink = RecordingSink::default();
    let result = read_from(
        Cursor::new(xml.as_bytes().to_vec()),
        &std::env::temp_dir().join("export.enex"),
        &mut sink,
        limits,
    );
    (result, sink)
}

fn time(text: &str) -> Option<DateTime<Utc>> {
    Some(DateTime::parse_from_rfc3339(text).unwrap().to_utc())
}

#[test]
fn evernote_10_checklists_become_task_items_nested_under_their_items() {
    let sink = read_sample("test-checklist.enex");
    assert_eq!(sink.notes.len(), 1);
    let note = sink.note("test-checkbox.v10.48");
    assert_eq!(
        note.body,
        "- [ ] Checklist item 1\n  - [ ] Nested item 1a\n  - [x] Nested checked item\n\
         - [x] Checked checklist item 2\n  - Nested unordered 2a\n- [ ] Checklist item 3\n  \
         1. Nested ordered 3a\n\n- unordered item\n  - [ ] nested checklist\n\n\
         - [ ] Checklist **bold** and & [link](https://example.com/?a=1&b=2)\n\n\
         ```\ncodeblock\n```"
    );
    assert_eq!(note.created_at, time("2023-01-21T09:37:33Z"));
    assert_eq!(note.updated_at, time("2023-01-21T10:10:27Z"));
    assert_eq!(note.name, "test-checkbox.v10.48");
}

#[test]
fn legacy_en_todos_become_task_items_even_inside_bold_and_tags_are_kept() {
    let sink = read_sample("test-empty-en-todo.enex");
    let note = sink.note("test-empty-en-todo");
    assert_eq!(
        note.body,
        "***For this week***\n\n\
         - [x] Add view\\_post\\_X\\_forum variable\n\
         - [x] Handle the two non-\\_ttl variables to allow for analysis\n\
         - [ ] Begin stepwise regression work"
    );
    assert_eq!(note.tags, ["WorkLog", "AU_RA"]);
    assert_eq!(note.created_at, time("2016-08-04T14:33:32Z"));
}

#[test]
fn a_resource_is_stored_and_shown_where_its_en_media_hash_points() {
    let sink = read_sample("test-image-dataUrl.enex");
    let photo = sink
        .files
        .iter()
        .find(|f| f.name == "photo.png")
        .expect("the resource photo.png is handed to the sink");
    assert_eq!(
        hex::encode(Md5::digest(&photo.bytes)),
        "64c11ef139c91b3826da3b5a4989a9ca",
        "the decoded bytes are those the en-media hash names"
    );
    assert!(photo.bytes.starts_with(b"\x89PNG\r\n\x1a\n"));
    assert_eq!(photo.content_type.as_deref(), Some("image/png"));
    let note = sink.note("test - image - dataUrl");
    assert!(
        note.body
            .contains(&format!("![photo.png](/files/{})", photo.sha256)),
        "{}",
        note.body
    );
}

#[test]
fn data_url_images_in_the_content_are_handed_over_as_files_too() {
    let sink = read_sample("test-image-dataUrl.enex");
    let names: Vec<&str> = sink.files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "photo.png",
            "image.png",
            "image.svg",
            "image.svg",
            "image.svg"
        ]
    );
    let png = &sink.files[1];
    assert!(png.bytes.starts_with(b"\x89PNG\r\n\x1a\n"));
    let svg = &sink.files[2];
    assert!(svg.bytes.starts_with(b"<svg xmlns="), "percent-decoded");
    let body = &sink.note("test - image - dataUrl").body;
    assert!(body.starts_with(&format!("![image.png](/files/{})", png.sha256)));
    assert!(body.contains(&format!("[image.svg](/files/{})", svg.sha256)));
    assert!(!body.contains("data:"), "{body}");
    assert!(
        body.contains("[Free to use under the Unsplash License](https://unsplash.com/license)")
    );
}

#[test]
fn escaped_tag_text_is_unescaped() {
    let sink = read_sample("test-invalid-tags.enex");
    let note = sink.note("invalid-tags");
    assert_eq!(note.tags, ["tagPt1@+`\"'\\_tagPt2éáűőőúöüóí"]);
    assert_eq!(note.body, "Note containing invalid tags");
}

#[test]
fn evernote_links_keep_their_href_and_two_notes_get_two_ids() {
    let sink = read_sample("test-links.enex");
    assert_eq!(sink.notes.len(), 2);
    let b = sink.note("NoteB");
    assert_eq!(
        b.body,
        "This is the content of NoteB, and a reference to [NoteA](evernote:///view/10000000/s150/\
         acbca7f9-5e63-48d8-9d20-698facc936e8/acbca7f9-5e63-48d8-9d20-698facc936e8/)"
    );
    assert_eq!(b.created_at, time("2020-05-28T14:14:04Z"));
    assert_eq!(b.updated_at, time("2020-05-28T14:14:42Z"));
    assert_ne!(sink.notes[0].source_id, sink.notes[1].source_id);
}

#[test]
fn reading_the_same_file_twice_gives_the_same_source_ids() {
    for name in SAMPLES {
        let ids = |sink: RecordingSink| -> Vec<String> {
            sink.notes.into_iter().map(|n| n.source_id).collect()
        };
        assert_eq!(ids(read_sample(name)), ids(read_sample(name)), "{name}");
    }
}

#[test]
fn notes_with_the_same_title_and_time_still_get_different_ids() {
    let note = "<note><title>Same</title><content><![CDATA[<en-note>x</en-note>]]></content>\
                <created>20200101T000000Z</created></note>";
    let (result, sink) = read_text(
        &format!("<en-export>{note}{note}</en-export>"),
        &Limits::default(),
    );
    result.unwrap();
    assert_eq!(sink.notes.len(), 2);
    assert_ne!(sink.notes[0].source_id, sink.notes[1].source_id);
}

#[test]
fn an_edited_reexport_in_another_order_with_a_renamed_note_keeps_every_source_id() {
    let note = |title: &str, created: &str| {
        format!(
            "<note><title>{title}</title><content><![CDATA[<en-note>x</en-note>]]></content>\
             {created}</note>"
        )
    };
    let ids = |notes: &[String]| -> Vec<(String, String)> {
        let (result, sink) = read_text(
            &format!("<en-export>{}</en-export>", notes.concat()),
            &Limits::default(),
        );
        result.unwrap();
        let mut ids: Vec<_> = sink
            .notes
            .into_iter()
            .map(|n| {
                (
                    n.body.clone() + &n.created_at.map(|t| t.to_string()).unwrap_or_default(),
                    n.source_id,
                )
            })
            .collect();
        ids.sort();
        ids
    };
    let a = note("A", "<created>20200101T000000Z</created>");
    let b = note("B", "<created>20200202T000000Z</created>");
    let renamed_b = note("B, renamed", "<created>20200202T000000Z</created>");
    let c = note("C", "<created>20200303T000000Z</created>");
    let first = ids(&[a.clone(), b, c.clone()]);
    let again = ids(&[renamed_b, c, a]);
    assert_eq!(first, again);
    assert_eq!(first.len(), 3);
    // Notes without a creation time are still told apart.
    let untimed = ids(&[note("X", ""), note("Y", "")]);
    assert_ne!(untimed[0].1, untimed[1].1);
}

#[test]
fn a_deleted_note_is_skipped_and_its_files_are_not_handed_over() {
    let xml = "<en-export><note><title>Gone</title><content><![CDATA[<en-note>x</en-note>]]>\
               </content><deleted>20200101T000000Z</deleted><resource><data encoding=\"base64\">\
               aGVsbG8=</data><mime>text/plain</mime></resource></note></en-export>";
    let (result, sink) = read_text(xml, &Limits::default());
    result.unwrap();
    assert!(sink.notes.is_empty());
    assert!(sink.files.is_empty());
    assert_eq!(sink.skipped, [("Gone".to_owned(), SkipReason::Deleted)]);
}

#[test]
fn a_deleted_notes_resource_larger_than_the_note_limit_is_read_past() {
    let data = "QUFB".repeat(10_000);
    let xml = format!(
        "<en-export><note><title>Gone</title><deleted>20200101T000000Z</deleted><resource>\
         <data encoding=\"base64\">{data}</data></resource></note><note><title>Kept</title>\
         </note></en-export>"
    );
    let limits = Limits {
        note_bytes: 1000,
        ..Limits::default()
    };
    let (result, sink) = read_text(&xml, &limits);
    result.unwrap();
    assert_eq!(sink.skipped.len(), 1);
    assert_eq!(sink.notes[0].title, "Kept");
}

#[test]
fn a_resource_larger_than_the_note_limit_is_streamed_to_the_sink() {
    let bytes = vec![7u8; 30_000];
    let data = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &bytes);
    let xml = format!(
        "<en-export><note><title>Big file</title><resource><data>{data}</data>\
         <mime>application/octet-stream</mime></resource></note></en-export>"
    );
    let limits = Limits {
        note_bytes: 1000,
        ..Limits::default()
    };
    let (result, sink) = read_text(&xml, &limits);
    result.unwrap();
    assert_eq!(sink.files[0].bytes, bytes);
}

#[test]
fn a_refused_file_is_named_as_not_kept_and_an_unshown_one_is_listed_at_the_end() {
    let xml = "<en-export><note><title>Files</title><content><![CDATA[<en-note><div>See \
               <en-media hash=\"fc3ff98e8c6a0d3087d515c0473f8677\" type=\"text/plain\"/></div>\
               </en-note>]]></content><resource><data>aGVsbG8gd29ybGQh</data><mime>text/plain</mime>\
               <resource-attributes><file-name>big.txt</file-name></resource-attributes>\
               </resource><resource><data>d29ybGQ=</data><mime>application/pdf</mime>\
               </resource></note></en-export>";
    let mut sink = RecordingSink {
        refuse_over: Some(8),
        ..RecordingSink::default()
    };
    read_from(
        Cursor::new(xml.as_bytes().to_vec()),
        &std::env::temp_dir().join("export.enex"),
        &mut sink,
        &Limits::default(),
    )
    .unwrap();
    let world = hex::encode(sha2::Sha256::digest(b"world"));
    assert_eq!(
        sink.notes[0].body,
        format!("See (attachment big.txt was not kept)\n\n[attachment](/files/{world})")
    );
}

#[test]
fn a_cut_short_file_is_malformed_and_says_so() {
    let text = std::fs::read_to_string(sample("enex", "test-links.enex")).unwrap();
    let cut = &text[..text.find("<note><title>NoteA").unwrap() + 30];
    let (result, _) = read_text(cut, &Limits::default());
    match result {
        Err(ReadError::Malformed(message)) => {
            assert!(message.contains("cut short"), "{message}");
            assert!(message.contains("line"), "{message}");
        }
        other => panic!("expected Malformed, got {other:?}"),
    }
}

#[test]
fn garbled_xml_is_malformed_with_its_line() {
    let (result, _) = read_text(
        "<en-export>\n<note>\n<title>A</titel>\n</note></en-export>",
        &Limits::default(),
    );
    match result {
        Err(ReadError::Malformed(message)) => assert!(message.contains("line 3"), "{message}"),
        other => panic!("expected Malformed, got {other:?}"),
    }
    let (result, _) = read_text("{\"version\":\"004\"}", &Limits::default());
    assert!(matches!(result, Err(ReadError::Malformed(_))), "{result:?}");
    let (result, _) = read_text("<html><body/></html>", &Limits::default());
    assert!(matches!(result, Err(ReadError::Malformed(m)) if m.contains("not an Evernote export")));
}

#[test]
fn bytes_that_are_not_utf8_are_malformed() {
    let mut xml = b"<en-export><note><title>A".to_vec();
    xml.push(0xFF);
    xml.extend_from_slice(b"</title></note></en-export>");
    let mut sink = RecordingSink::default();
    let result = read_from(
        Cursor::new(xml),
        &std::env::temp_dir().join("export.enex"),
        &mut sink,
        &Limits::default(),
    );
    assert!(matches!(result, Err(ReadError::Malformed(_))), "{result:?}");
}

#[test]
fn content_larger_than_the_note_limit_is_too_large() {
    let limits = Limits {
        note_bytes: 1000,
        ..Limits::default()
    };
    let mut sink = RecordingSink::default();
    let result = read(&sample("enex", "test-checklist.enex"), &mut sink, &limits);
    assert!(
        matches!(&result, Err(ReadError::TooLarge(m)) if m.contains("test-checkbox.v10.48")),
        "{result:?}"
    );
    // One CDATA far past the limit fails before it is all held.
    let huge = format!(
        "<en-export><note><title>Big</title><content><![CDATA[{}]]></content></note></en-export>",
        "x".repeat(200_000)
    );
    let (result, _) = read_text(&huge, &limits);
    assert!(matches!(result, Err(ReadError::TooLarge(_))), "{result:?}");
}

#[test]
fn a_note_listing_more_files_than_its_limit_allows_is_too_large() {
    let resource = "<resource><data>QQ==</data></resource>";
    let xml = format!(
        "<en-export><note><title>Many</title>{}</note></en-export>",
        resource.repeat(10)
    );
    let limits = Limits {
        note_bytes: 1000,
        ..Limits::default()
    };
    let (result, _) = read_text(&xml, &limits);
    assert!(
        matches!(&result, Err(ReadError::TooLarge(m)) if m.contains("Many")),
        "{result:?}"
    );
    let (result, sink) = read_text(&xml, &Limits::default());
    result.unwrap();
    assert_eq!(sink.files.len(), 10);
}

#[test]
fn more_notes_than_the_limit_is_too_large() {
    let limits = Limits {
        notes: 1,
        ..Limits::default()
    };
    let mut sink = RecordingSink::default();
    let result = read(&sample("enex", "test-links.enex"), &mut sink, &limits);
    assert!(matches!(result, Err(ReadError::TooLarge(_))), "{result:?}");
}

#[test]
fn every_sample_cut_anywhere_is_malformed_and_never_panics() {
    for name in SAMPLES {
        let bytes = std::fs::read(sample("enex", name)).unwrap();
        for cut in cuts(&bytes) {
            let mut sink = RecordingSink::default();
            let result = read_from(
                Cursor::new(cut),
                &std::env::temp_dir().join("export.enex"),
                &mut sink,
                &Limits::default(),
            );
            assert!(
                matches!(result, Err(ReadError::Malformed(_))),
                "{name}: a cut file is Malformed, not {result:?}"
            );
        }
    }
}

#[test]
fn every_sample_garbled_anywhere_never_panics() {
    for name in SAMPLES {
        let bytes = std::fs::read(sample("enex", name)).unwrap();
        for garbled in garbles(&bytes) {
            let mut sink = RecordingSink::default();
            // Some garbles still read (a changed letter of text); none may panic.
            let _ = read_from(
                Cursor::new(garbled),
                &std::env::temp_dir().join("export.enex"),
                &mut sink,
                &Limits::default(),
            );
        }
    }
}

#[test]
fn a_sink_that_stops_ends_the_reading() {
    let mut sink = RecordingSink {
        stop_after: Some(1),
        ..RecordingSink::default()
    };
    let result = read(
        &sample("enex", "test-links.enex"),
        &mut sink,
        &Limits::default(),
    );
    assert!(matches!(result, Err(ReadError::Stopped)), "{result:?}");
    assert_eq!(sink.notes.len(), 1);
}
