//! Google Keep, from a Takeout zip: one `Keep/<note>.json` per note (the `.html` twin
//! beside each is not read), its attachments beside it in the same folder.
//!
//! A note's text is Keep's plain text as it is (oncenote shows each line break; `#words`
//! become oncenote tags, as they read in Keep); a checklist becomes task items
//! (`- [ ] text`, `- [x] text`); labels become tags; pinned and archived carry over; a
//! note in Keep's trash is skipped. The two times are microseconds since 1970. Each
//! attachment is handed to the sink and shown at the end of the text; one the zip does
//! not hold (Takeout leaves some out) is named in words instead, and the import goes on.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use chrono::{DateTime, Utc};
use serde::Deserialize;

use crate::archive::Archive;
use crate::attachments::{not_in_export, shown};
use crate::{FileIn, ForeignNote, Limits, ReadError, Sink, SkipReason};

/// One note as Takeout writes it (fields Keep added later, like `textContentHtml`, are
/// not read).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct KeepNote {
    title: String,
    text_content: Option<String>,
    list_content: Option<Vec<ListItem>>,
    labels: Vec<Label>,
    attachments: Vec<Attachment>,
    annotations: Vec<Annotation>,
    is_pinned: bool,
    is_archived: bool,
    is_trashed: bool,
    created_timestamp_usec: Option<i64>,
    user_edited_timestamp_usec: Option<i64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct ListItem {
    text: String,
    is_checked: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Label {
    name: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct Attachment {
    file_path: String,
    mimetype: Option<String>,
}

/// A link Keep found in the text (a web page's title and address).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Annotation {
    title: String,
    url: String,
}

/// Reads the Takeout zip at `path` into `sink`.
pub fn read(path: &Path, sink: &mut dyn Sink, limits: &Limits) -> Result<(), ReadError> {
    let mut zip = Archive::open(path, limits)?;
    let names = zip.file_names();
    let present: HashSet<&str> = names.iter().map(String::as_str).collect();
    let notes: Vec<&String> = names.iter().filter(|n| is_keep_json(n)).collect();
    if notes.len() > limits.notes {
        return Err(ReadError::TooLarge(format!(
            "the export holds {} notes; at most {} are imported at once",
            notes.len(),
            limits.notes
        )));
    }
    let created_counts = creation_times(&mut zip, &notes, limits)?;
    for entry in notes {
        let text = zip.read_text(entry, limits.note_bytes)?;
        let note: KeepNote = serde_json::from_str(&text).map_err(|e| {
            ReadError::Malformed(format!(
                "{entry} is not a Keep note as Takeout writes it: {e}"
            ))
        })?;
        let (folder, file) = entry.rsplit_once('/').unwrap_or(("", entry));
        let stem = file.strip_suffix(".json").unwrap_or(file);
        let name = if note.title.trim().is_empty() {
            stem.to_owned()
        } else {
            note.title.clone()
        };
        if note.is_trashed {
            sink.skipped(&name, SkipReason::Trashed)?;
            continue;
        }
        let mut body = text_of(&note);
        for attachment in &note.attachments {
            let shown = hand_over(&mut zip, &present, folder, attachment, sink)?;
            push_paragraph(&mut body, &shown);
        }
        for link in note.annotations.iter().filter(|a| !a.url.is_empty()) {
            let title = if link.title.is_empty() {
                &link.url
            } else {
                &link.title
            };
            push_paragraph(&mut body, &link_markdown(title, &link.url));
        }
        sink.note(ForeignNote {
            source_id: source_id(&note, file, &created_counts),
            name,
            title: note.title.clone(),
            body,
            created_at: note.created_timestamp_usec.and_then(from_micros),
            updated_at: note.user_edited_timestamp_usec.and_then(from_micros),
            tags: crate::names::note_tags(note.labels.iter().map(|l| l.name.as_str())),
            pinned: note.is_pinned,
            archived: note.is_archived,
        })?;
    }
    Ok(())
}

/// Just a note's creation time (the first pass, which finds the times notes share).
#[derive(Deserialize)]
struct Created {
    #[serde(rename = "createdTimestampUsec", default)]
    created_timestamp_usec: Option<i64>,
}

/// How many of the export's notes were created at each time.
fn creation_times(
    zip: &mut Archive,
    notes: &[&String],
    limits: &Limits,
) -> Result<HashMap<i64, usize>, ReadError> {
    let mut counts = HashMap::new();
    for entry in notes {
        let text = zip.read_text(entry, limits.note_bytes)?;
        // A note that does not parse is reported by the second pass.
        if let Ok(Created {
            created_timestamp_usec: Some(created),
        }) = serde_json::from_str(&text)
        {
            *counts.entry(created).or_default() += 1;
        }
    }
    Ok(counts)
}

/// A Keep note's id: its creation time, which stays when the note is renamed (its file's
/// name is its title) or comes in another Takeout (another top folder). Notes created in
/// the same microsecond (copies made together) add their file name to tell them apart,
/// and a note without a time is named by its file alone.
fn source_id(note: &KeepNote, file: &str, created_counts: &HashMap<i64, usize>) -> String {
    match note.created_timestamp_usec {
        Some(created) if created_counts.get(&created).copied().unwrap_or(0) <= 1 => {
            format!("created:{created}")
        }
        Some(created) => format!("created:{created}/{file}"),
        None => format!("file:{file}"),
    }
}

/// A link annotation as Markdown: the text without what would end or escape it, the
/// address in `<…>` (where spaces, `)` and `\` stay as they are) with `<`, `>` and line
/// breaks percent-encoded.
fn link_markdown(title: &str, url: &str) -> String {
    let text: String = title
        .chars()
        .map(|c| match c {
            '[' | ']' | '\\' | '`' | '\n' | '\r' => ' ',
            c => c,
        })
        .collect();
    let mut address = String::with_capacity(url.len());
    for c in url.chars() {
        match c {
            '<' => address.push_str("%3C"),
            '>' => address.push_str("%3E"),
            '\\' => address.push_str("%5C"),
            '\n' => address.push_str("%0A"),
            '\r' => address.push_str("%0D"),
            c => address.push(c),
        }
    }
    format!("[{text}](<{address}>)")
}

/// `Keep/<note>.json`, under any folder.
fn is_keep_json(name: &str) -> bool {
    let mut parts = name.rsplit('/');
    let file = parts.next().unwrap_or("");
    parts.next() == Some("Keep") && file.len() > ".json".len() && file.ends_with(".json")
}

/// The note's text: its text, or its checklist as task items.
fn text_of(note: &KeepNote) -> String {
    if let Some(items) = &note.list_content {
        let lines: Vec<String> = items
            .iter()
            .map(|item| {
                let mark = if item.is_checked { "x" } else { " " };
                // A task item is one line: a line break inside it would end it.
                let text = item.text.replace(['\r', '\n'], " ");
                format!("- [{mark}] {text}")
            })
            .collect();
        let list = lines.join("\n");
        match note
            .text_content
            .as_deref()
            .filter(|t| !t.trim().is_empty())
        {
            Some(text) => format!("{text}\n\n{list}"),
            None => list,
        }
    } else {
        note.text_content.clone().unwrap_or_default()
    }
}

/// Hands the attachment to the sink and says how the note shows it. Takeout sometimes
/// names a JPEG `.jpg` where the JSON says `.jpeg` (and the reverse): the other spelling is
/// tried too.
fn hand_over(
    zip: &mut Archive,
    present: &HashSet<&str>,
    folder: &str,
    attachment: &Attachment,
    sink: &mut dyn Sink,
) -> Result<String, ReadError> {
    let file = attachment.file_path.rsplit('/').next().unwrap_or("");
    if file.is_empty() {
        return Ok(String::new());
    }
    let in_folder = |file: &str| {
        if folder.is_empty() {
            file.to_owned()
        } else {
            format!("{folder}/{file}")
        }
    };
    let mut candidates = vec![in_folder(file)];
    if let Some(stem) = file.strip_suffix(".jpeg") {
        candidates.push(in_folder(&format!("{stem}.jpg")));
    } else if let Some(stem) = file.strip_suffix(".jpg") {
        candidates.push(in_folder(&format!("{stem}.jpeg")));
    }
    let Some(entry) = candidates.iter().find(|c| present.contains(c.as_str())) else {
        return Ok(not_in_export(file));
    };
    let content_type = attachment.mimetype.as_deref();
    let (mut bytes, _) = zip.open_entry(entry)?;
    let stored = sink.file(FileIn {
        name: file,
        content_type,
        bytes: &mut bytes,
    })?;
    Ok(shown(file, &stored, content_type))
}

fn push_paragraph(body: &mut String, paragraph: &str) {
    if paragraph.is_empty() {
        return;
    }
    if !body.is_empty() {
        body.push_str("\n\n");
    }
    body.push_str(paragraph);
}

/// Keep's microseconds since 1970 (zero meaning none).
fn from_micros(micros: i64) -> Option<DateTime<Utc>> {
    (micros > 0)
        .then(|| DateTime::from_timestamp_micros(micros))
        .flatten()
}

#[cfg(test)]
#[path = "keep_tests.rs"]
mod tests;
