//! Telling an export's kind from its content (never its file name), reading only a
//! bounded part of it: the first [`PREFIX`] bytes of the file, and of a zip or tar only
//! its list of entries and the first bytes of a few of them.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use crate::archive::Archive;
use crate::joplin_item::{Item, is_joplin_id};
use crate::json_prefix::top_level_keys;
use crate::tarball::Tarball;
use crate::{Kind, Limits};

/// How much of the file (or of one archive member) is read to tell its kind.
const PREFIX: usize = 64 * 1024;
/// How many members of an archive are opened to look inside; the rest are judged by
/// name only.
const MEMBERS_LOOKED_INTO: usize = 32;

/// The kind of the export at `path`, or `None` if it is of no kind we read.
///
/// A zip is judged by its entries, in this order: oncenote's own `notes.json`; a
/// Takeout `Keep/<note>.json`; a Standard Notes backup member (`{"version":…,"items":…}`);
/// Joplin items (`.md` files ending in Joplin's `key: value` block, or a `resources/` or
/// `.resource/` folder of files named by Joplin ids); any other `.md` files (a Markdown
/// folder). A tar whose `.md` members are Joplin items is a `.jex`. Text that opens with
/// `<en-export` (after an XML declaration and a doctype) is Evernote's; a JSON object with
/// `"version"` and `"items"` among its first keys is a Standard Notes backup.
pub fn detect(path: &Path) -> io::Result<Option<Kind>> {
    let head = read_prefix(&mut File::open(path)?, PREFIX)?;
    if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        return Ok(zip_kind(path));
    }
    if is_tar_header(&head) {
        return Ok(tar_kind(path));
    }
    let text = skip_bom_and_space(&head);
    if opens_en_export(text) {
        return Ok(Some(Kind::Evernote));
    }
    if is_standard_notes_backup(text) {
        return Ok(Some(Kind::StandardNotes));
    }
    Ok(None)
}

/// Whether `head` (a file's first bytes) is a tar header: `ustar` at offset 257.
pub(crate) fn is_tar_header(head: &[u8]) -> bool {
    head.get(257..262) == Some(b"ustar")
}

fn read_prefix(from: &mut impl Read, max: usize) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    from.take(max as u64).read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn skip_bom_and_space(bytes: &[u8]) -> &[u8] {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    &bytes[start..]
}

/// Whether XML text opens with `<en-export`, past an XML declaration, a doctype and
/// comments.
fn opens_en_export(mut text: &[u8]) -> bool {
    loop {
        text = skip_bom_and_space(text);
        let close: &[u8] = if text.starts_with(b"<?") {
            b"?>"
        } else if text.starts_with(b"<!--") {
            b"-->"
        } else if text.starts_with(b"<!DOCTYPE") || text.starts_with(b"<!doctype") {
            b">"
        } else {
            return text.starts_with(b"<en-export");
        };
        match text.windows(close.len()).position(|w| w == close) {
            Some(at) => text = &text[at + close.len()..],
            None => return false,
        }
    }
}

fn is_standard_notes_backup(text: &[u8]) -> bool {
    let keys = top_level_keys(text);
    keys.iter().any(|(k, _)| k == "version") && keys.iter().any(|(k, _)| k == "items")
}

fn zip_kind(path: &Path) -> Option<Kind> {
    let mut zip = Archive::open(path, &Limits::default()).ok()?;
    let names = zip.file_names();
    if names.iter().any(|n| n == "notes.json") {
        let start = zip.read_start("notes.json", 4096).ok()?;
        let says_oncenote = top_level_keys(&start)
            .iter()
            .any(|(k, v)| k == "format" && v.as_deref() == Some("oncenote-export"));
        if says_oncenote {
            return Some(Kind::Oncenote);
        }
    }
    if names.iter().any(|n| is_keep_note(n)) {
        return Some(Kind::Keep);
    }
    // The member is usually `Standard Notes Backup and Import File.txt`, at the root: look
    // at the shallowest `.txt`/`.json` members first.
    let mut candidates: Vec<&String> = names
        .iter()
        .filter(|n| has_extension(n, &["txt", "json"]))
        .collect();
    candidates.sort_by_key(|n| n.matches('/').count());
    for name in candidates.into_iter().take(MEMBERS_LOOKED_INTO) {
        if let Ok(start) = zip.read_start(name, PREFIX as u64)
            && is_standard_notes_backup(skip_bom_and_space(&start))
        {
            return Some(Kind::StandardNotes);
        }
    }
    let markdown: Vec<&String> = names
        .iter()
        .filter(|n| has_extension(n, &["md", "markdown"]))
        .collect();
    if names.iter().any(|n| is_joplin_resource(n)) {
        return Some(Kind::Joplin);
    }
    for name in markdown.iter().take(MEMBERS_LOOKED_INTO) {
        if let Ok(start) = zip.read_start(name, PREFIX as u64)
            && is_joplin_item(&start)
        {
            return Some(Kind::Joplin);
        }
    }
    (!markdown.is_empty()).then_some(Kind::Markdown)
}

fn tar_kind(path: &Path) -> Option<Kind> {
    let mut tar = Tarball::open(path, &Limits::default()).ok()?;
    let names = tar.file_names();
    let markdown = names.iter().filter(|n| has_extension(n, &["md"]));
    for name in markdown.take(MEMBERS_LOOKED_INTO) {
        if let Ok(text) = tar.read_text(name, PREFIX as u64)
            && is_joplin_item(text.as_bytes())
        {
            return Some(Kind::Joplin);
        }
    }
    None
}

/// `Keep/<note>.json`, under any folder (`Takeout/Keep/…`).
fn is_keep_note(name: &str) -> bool {
    let mut parts = name.rsplit('/');
    let file = parts.next().unwrap_or("");
    parts.next() == Some("Keep") && has_extension(file, &["json"])
}

/// A file in Joplin's `resources/` (RAW, JEX) or `.resource/` (sync folder) named by an
/// id.
fn is_joplin_resource(name: &str) -> bool {
    let mut parts = name.rsplit('/');
    let file = parts.next().unwrap_or("");
    let stem = file.split('.').next().unwrap_or("");
    matches!(parts.next(), Some("resources" | ".resource")) && is_joplin_id(stem)
}

/// Whether the start of a `.md` member is a whole Joplin item (a cut-off one cannot be
/// told, and is not counted).
fn is_joplin_item(start: &[u8]) -> bool {
    if start.len() >= PREFIX {
        return false;
    }
    let text = String::from_utf8_lossy(start);
    Item::parse(&text).is_some_and(|item| item.id().is_some())
}

fn has_extension(name: &str, extensions: &[&str]) -> bool {
    name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && !stem.ends_with('/')
            && extensions.iter().any(|e| ext.eq_ignore_ascii_case(e))
    })
}

#[cfg(test)]
#[path = "detect_tests.rs"]
mod tests;
