use super::*;
use crate::test_support::{Event, Recorder, entries_of, samples, sha256_of, write_zip};

fn read_zip(entries: &[(String, Vec<u8>)]) -> Recorder {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("vault.zip");
    write_zip(&path, entries);
    let mut sink = Recorder::default();
    read(&path, &mut sink, &Limits::default()).unwrap();
    sink
}

fn obsidian_export() -> Recorder {
    let folder = samples("markdown").join("obsidian-export");
    read_zip(&entries_of(&folder, "obsidian-export/"))
}

fn main_sample_sha(file: &str) -> String {
    sha256_of(
        &samples("markdown")
            .join("obsidian-export/main-samples")
            .join(file),
    )
    .unwrap()
}

#[test]
fn embeds_become_file_links_and_note_embeds_wikilinks_but_code_and_broken_syntax_stay() {
    let sink = obsidian_export();
    let (png, svg, pdf) = (
        main_sample_sha("white.png"),
        main_sample_sha("bulb.svg"),
        main_sample_sha("note.pdf"),
    );
    let expected = format!(
        "This note embeds another note with frontmatter.\n\n[[note-with-frontmatter]]\n\n\
         > [[note-with-frontmatter]]\n\n[[non-existing note]]\n\nImage embed:\n\n\
         ![white.png](/files/{png})\n\n[bulb.svg](/files/{svg})\n\nPDF embed:\n\n\
         [note.pdf](/files/{pdf})\n\n\
         Note reference within backticks: `![[note-with-frontmatter]]`\n\n\
         ```\nAnd within a code block:\n![[note-with-frontmatter]]\n```\n\n\
         ![[Not a valid embed.]\n\n![[Partial embed\n\n![image, not embed](/files/{png})\n"
    );
    assert_eq!(sink.note("embeds").body, expected);
}

#[test]
fn each_file_is_handed_over_once_with_its_bytes_before_the_note_that_shows_it() {
    let sink = obsidian_export();
    let files = sink.files();
    let mut names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
    names.sort();
    assert_eq!(names, ["bulb.svg", "note.pdf", "white.png"]);
    let folder = samples("markdown").join("obsidian-export/main-samples");
    for file in &files {
        assert_eq!(file.bytes, std::fs::read(folder.join(&file.name)).unwrap());
    }
    let png = files.iter().find(|f| f.name == "white.png").unwrap();
    assert_eq!(png.content_type.as_deref(), Some("image/png"));
    let last_file = sink
        .events
        .iter()
        .rposition(|e| matches!(e, Event::File(_)));
    let embeds = sink
        .events
        .iter()
        .position(|e| matches!(e, Event::Note(n) if n.title == "embeds"));
    assert!(last_file < embeds);
}

#[test]
fn a_vault_zipped_with_or_without_its_top_folder_gives_the_same_source_ids() {
    let folder = samples("markdown").join("obsidian-export");
    let ids = |prefix: &str| -> Vec<String> {
        let mut ids: Vec<String> = read_zip(&entries_of(&folder, prefix))
            .notes()
            .iter()
            .map(|n| n.source_id.clone())
            .collect();
        ids.sort();
        ids
    };
    let with_top = ids("obsidian-export/");
    assert_eq!(with_top, ids(""));
    assert!(with_top.iter().all(|id| !id.starts_with("obsidian-export")));
}

#[test]
fn the_title_is_the_file_name_and_the_folder_a_tag() {
    let sink = obsidian_export();
    let note = sink.note("note-with-frontmatter");
    assert_eq!(note.body, "Note with frontmatter.\n");
    assert_eq!(note.tags, ["main-samples"]);
    assert_eq!(note.source_id, "main-samples/note-with-frontmatter.md");
    assert_eq!(
        note.updated_at.unwrap().to_rfc3339(),
        "2024-03-09T10:30:00+00:00",
        "the zip entry's time"
    );
    assert_eq!(note.created_at, None);
    let quotes = sink.note("Nöte with 'quotes'");
    assert_eq!(quotes.tags, ["non-ascii"]);
    assert_eq!(
        sink.note("Embed").body,
        "This note embeds [[Nöte with 'quotes']]:\n\n[[Nöte with 'quotes']]\n"
    );
    assert_eq!(sink.notes().len(), 6);
}

#[test]
fn plain_markdown_is_kept_as_written() {
    let sink = obsidian_export();
    let path = samples("markdown").join("obsidian-export/main-samples/pure-markdown-examples.md");
    assert_eq!(
        sink.note("pure-markdown-examples").body,
        std::fs::read_to_string(path).unwrap()
    );
}

#[test]
fn front_matter_gives_title_tags_and_times_and_inline_tags_stay() {
    let folder = samples("markdown").join("obsidian-importer");
    let sink = read_zip(&entries_of(&folder, ""));
    let note = sink.note("Reading list");
    assert_eq!(note.tags, ["books"]);
    assert_eq!(
        note.created_at.unwrap().to_rfc3339(),
        "2026-01-14T00:00:00+00:00"
    );
    assert!(
        note.body
            .starts_with("Started *Piranesi* last night. #books #fiction")
    );
    assert!(note.body.contains("[[Reading list 2025#Highlights]]"));
    assert!(!note.body.contains("title:"));
    let tags = sink.note("tags");
    assert!(tags.tags.is_empty());
    assert_eq!(
        tags.body,
        std::fs::read_to_string(folder.join("tags.md")).unwrap()
    );
}

#[test]
fn joplin_s_front_matter_note_reads_as_a_markdown_note() {
    let full = std::fs::read(samples("joplin").join("full.md")).unwrap();
    let sink = read_zip(&[("full.md".into(), full)]);
    let note = sink.note("Test Note Title");
    assert_eq!(note.tags, ["Joplin", "nOte", "pencil"]);
    assert_eq!(
        note.created_at.unwrap().to_rfc3339(),
        "2019-05-01T16:54:00+00:00"
    );
    assert_eq!(
        note.updated_at.unwrap().to_rfc3339(),
        "2019-05-01T16:54:00+00:00"
    );
    assert_eq!(note.body, "This is the note body\n");
    assert_eq!(note.source_id, "full.md");
}

#[test]
fn relative_encoded_paths_resolve_and_unreferenced_or_hidden_files_are_not_imported() {
    let png =
        std::fs::read(samples("markdown").join("obsidian-export/main-samples/white.png")).unwrap();
    let entries =
        vec![
        (
            "Vault/Projects/2024/Plan.md".to_string(),
            b"![chart](../../img/my%20chart.png) and ![[gone.png]] and [web](https://x.org/a.png)"
                .to_vec(),
        ),
        ("Vault/img/my chart.png".to_string(), png.clone()),
        ("Vault/img/unused.png".to_string(), png.clone()),
        ("Vault/.obsidian/workspace.md".to_string(), b"settings".to_vec()),
        ("Vault/.trash/Old idea.md".to_string(), b"old".to_vec()),
    ];
    let sink = read_zip(&entries);
    assert_eq!(sink.notes().len(), 1);
    let note = sink.note("Plan");
    assert_eq!(note.tags, ["Projects/2024"]);
    let sha = sink.files()[0].sha256.clone();
    assert_eq!(
        note.body,
        format!(
            "![chart](/files/{sha}) and (attachment gone.png was not in the export) and \
             [web](https://x.org/a.png)"
        )
    );
    assert_eq!(sink.files().len(), 1);
    assert_eq!(sink.files()[0].name, "my chart.png");
    assert_eq!(sink.skipped(), vec![("Old idea", SkipReason::Trashed)]);
}

#[test]
fn a_file_shown_by_two_notes_is_handed_over_once() {
    let png =
        std::fs::read(samples("markdown").join("obsidian-export/main-samples/white.png")).unwrap();
    let entries = vec![
        ("a.md".to_string(), b"![[white.png]]".to_vec()),
        ("b/b.md".to_string(), b"![[white.png|100]]".to_vec()),
        ("files/white.png".to_string(), png),
    ];
    let sink = read_zip(&entries);
    assert_eq!(sink.files().len(), 1);
    let sha = &sink.files()[0].sha256;
    assert_eq!(sink.note("a").body, format!("![white.png](/files/{sha})"));
    assert_eq!(sink.note("b").body, format!("![white.png](/files/{sha})"));
}

#[test]
fn more_notes_than_the_limit_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("vault.zip");
    write_zip(
        &path,
        &entries_of(&samples("markdown").join("obsidian-export"), ""),
    );
    let limits = Limits {
        notes: 5,
        ..Limits::default()
    };
    let result = read(&path, &mut Recorder::default(), &limits);
    assert!(matches!(result, Err(ReadError::TooLarge(_))));
}
