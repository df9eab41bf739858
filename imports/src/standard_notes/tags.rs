//! What the first pass over a Standard Notes backup learns: each note's tags (tags point
//! at their notes, not the other way round) and which notes an editor wrote as HTML or
//! code (older backups say so only on the editor's item).
//!
//! What it keeps is bounded twice: in count ([`MAX_REFERENCES`]) and in bytes
//! ([`MAX_KEPT_BYTES`]: ids, titles and references as the backup spells them), and a
//! tag's title is cut to what a tag can use. Each tag's path (`parent/child`) is made once
//! and shared by every note the tag names: a 2 MB title named by 50,000 notes was once
//! 50,000 copies of it, and took the server down.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use serde_json::Value;

use super::items::Item;
use crate::ReadError;

/// The editors whose notes' text is HTML.
pub(super) const HTML_EDITORS: [&str; 2] = [
    "org.standardnotes.plus-editor",
    "org.standardnotes.bold-editor",
];

/// The editors whose notes' text is code or data, shown as a code block.
pub(super) const CODE_EDITORS: [&str; 3] = [
    "org.standardnotes.code-editor",
    "org.standardnotes.standard-sheets",
    "org.standardnotes.token-vault",
];

/// Tag references and editor associations kept, at most (each a few dozen bytes).
const MAX_REFERENCES: usize = 1_000_000;

/// Nested tags deeper than this are cut at this many levels.
const MAX_LEVELS: usize = 32;

/// The most bytes of ids, titles and references pass 1 keeps (a real backup of 10,000
/// notes under a few hundred tags keeps well under a megabyte).
pub(super) const MAX_KEPT_BYTES: usize = 64 * 1024 * 1024;

/// A tag item.
struct Tag {
    title: String,
    parent: Option<String>,
    notes: Vec<String>,
}

/// What pass 1 gathers.
#[derive(Default)]
pub(super) struct Gathered {
    tags: HashMap<String, Tag>,
    /// Notes an HTML editor is associated with.
    pub html_notes: HashSet<String>,
    /// Notes a code editor is associated with.
    pub code_notes: HashSet<String>,
    references: usize,
    /// Bytes of strings kept so far (against [`MAX_KEPT_BYTES`]).
    kept_bytes: usize,
    /// An item whose content is encrypted was seen.
    pub encrypted: bool,
    /// Notes whose content could be read: with none, the whole backup is encrypted; with
    /// some, the few encrypted ones are skipped.
    pub readable_notes: usize,
}

impl Gathered {
    /// Takes in one item of pass 1.
    pub fn take(&mut self, item: Item) -> Result<(), ReadError> {
        if item.content.is_string() {
            // A note or tag still encrypted: the whole backup is (other items, such as
            // keys, may stay encrypted in a decrypted one).
            self.encrypted |= matches!(item.content_type.as_str(), "Note" | "Tag");
            return Ok(());
        }
        if item.content_type == "Note" && !item.deleted {
            self.readable_notes += 1;
        }
        if item.deleted {
            return Ok(());
        }
        let content = &item.content;
        match item.content_type.as_str() {
            "Tag" => {
                let mut notes = Vec::new();
                let mut parent = None;
                for reference in references(content) {
                    let uuid = reference
                        .get("uuid")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    match reference.get("content_type").and_then(Value::as_str) {
                        Some("Note") => notes.push(uuid.to_owned()),
                        Some("Tag") => parent = Some(uuid.to_owned()),
                        _ => {}
                    }
                }
                let title = crate::names::kept(
                    content
                        .get("title")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                );
                let bytes = notes.iter().map(String::len).sum::<usize>()
                    + parent.as_ref().map_or(0, String::len)
                    + item.uuid.len()
                    + title.len();
                self.count(notes.len() + 1, bytes)?;
                self.tags.insert(
                    item.uuid,
                    Tag {
                        title,
                        parent,
                        notes,
                    },
                );
            }
            "SN|Component" => {
                let identifier = content
                    .get("identifier")
                    .or_else(|| content.pointer("/package_info/identifier"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let html = if HTML_EDITORS.contains(&identifier) {
                    true
                } else if CODE_EDITORS.contains(&identifier) {
                    false
                } else {
                    return Ok(());
                };
                let associated: Vec<String> = content
                    .get("associatedItemIds")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect();
                let (n, bytes) = (associated.len(), associated.iter().map(String::len).sum());
                self.count(n, bytes)?;
                let set = if html {
                    &mut self.html_notes
                } else {
                    &mut self.code_notes
                };
                set.extend(associated);
            }
            _ => {}
        }
        Ok(())
    }

    /// Counts `n` more references (or associations) and `bytes` more kept.
    fn count(&mut self, n: usize, bytes: usize) -> Result<(), ReadError> {
        self.references = self.references.saturating_add(n);
        if self.references > MAX_REFERENCES {
            return Err(ReadError::TooLarge(format!(
                "the backup's tags name more than {MAX_REFERENCES} notes"
            )));
        }
        self.kept_bytes = self.kept_bytes.saturating_add(bytes);
        if self.kept_bytes > MAX_KEPT_BYTES {
            return Err(ReadError::TooLarge(format!(
                "the backup's tags and editors take more than {} MiB to remember",
                MAX_KEPT_BYTES >> 20
            )));
        }
        Ok(())
    }

    /// Each note's tags (taken out of what was gathered), nested levels joined with `/` (a
    /// parent tag's path, then the tag's own title, whose dots are the older way of
    /// nesting: `business.finance`). A tag's path is one string shared by all its notes;
    /// a note's list may name a path twice (two tags of one title), and is sorted and
    /// rid of repeats when the note is read ([`note_tags_of`]).
    pub fn take_note_tags(&mut self) -> HashMap<String, Vec<Rc<str>>> {
        let paths: HashMap<String, Rc<str>> = self
            .tags
            .keys()
            .map(|uuid| (uuid.clone(), Rc::from(self.path(uuid))))
            .collect();
        let mut by_note: HashMap<String, Vec<Rc<str>>> = HashMap::new();
        for (uuid, tag) in std::mem::take(&mut self.tags) {
            let path = &paths[&uuid];
            if path.is_empty() {
                continue;
            }
            for note in tag.notes {
                match by_note.get_mut(&note) {
                    Some(tags) => tags.push(Rc::clone(path)),
                    None => {
                        by_note.insert(note, vec![Rc::clone(path)]);
                    }
                }
            }
        }
        by_note
    }

    fn path(&self, uuid: &str) -> String {
        let mut levels = Vec::new();
        let mut next = Some(uuid);
        // A parent chain that loops (or is absurdly long) stops.
        for _ in 0..MAX_LEVELS {
            let Some(tag) = next.and_then(|u| self.tags.get(u)) else {
                break;
            };
            levels.push(tag.title.replace('.', "/"));
            next = tag.parent.as_deref();
        }
        levels.reverse();
        let path = levels
            .into_iter()
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("/");
        crate::names::kept(&path)
    }
}

/// A note's tags as pass 2 hands them over: sorted, each once, and together at most
/// `max_bytes` (what one note may take).
pub(super) fn note_tags_of(
    mut tags: Vec<Rc<str>>,
    max_bytes: u64,
) -> Result<Vec<String>, ReadError> {
    tags.sort_unstable();
    tags.dedup();
    let bytes: u64 = tags.iter().map(|t| t.len() as u64).sum();
    if bytes > max_bytes {
        return Err(ReadError::TooLarge(format!(
            "a note of the backup has tags of more than {max_bytes} bytes in all, the most \
             one note may take"
        )));
    }
    Ok(tags.iter().map(|t| t.to_string()).collect())
}

/// An item content's `references`.
fn references(content: &Value) -> impl Iterator<Item = &Value> {
    content
        .get("references")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}
