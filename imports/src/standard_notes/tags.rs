//! What the first pass over a Standard Notes backup learns: each note's tags (tags point
//! at their notes, not the other way round) and which notes an editor wrote as HTML or
//! code (older backups say so only on the editor's item).

use std::collections::{HashMap, HashSet};

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
                self.count(notes.len() + 1)?;
                let title = content
                    .get("title")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .trim()
                    .to_owned();
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
                let set = if HTML_EDITORS.contains(&identifier) {
                    &mut self.html_notes
                } else if CODE_EDITORS.contains(&identifier) {
                    &mut self.code_notes
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
                let n = associated.len();
                set.extend(associated);
                self.count(n)?;
            }
            _ => {}
        }
        Ok(())
    }

    fn count(&mut self, n: usize) -> Result<(), ReadError> {
        self.references = self.references.saturating_add(n);
        if self.references > MAX_REFERENCES {
            return Err(ReadError::TooLarge(format!(
                "the backup's tags name more than {MAX_REFERENCES} notes"
            )));
        }
        Ok(())
    }

    /// Each note's tags, nested levels joined with `/` (a parent tag's path, then the
    /// tag's own title, whose dots are the older way of nesting: `business.finance`).
    pub fn note_tags(&self) -> HashMap<String, Vec<String>> {
        let mut by_note: HashMap<String, Vec<String>> = HashMap::new();
        for (uuid, tag) in &self.tags {
            let path = self.path(uuid);
            if path.is_empty() {
                continue;
            }
            for note in &tag.notes {
                let tags = by_note.entry(note.clone()).or_default();
                if !tags.contains(&path) {
                    tags.push(path.clone());
                }
            }
        }
        for tags in by_note.values_mut() {
            tags.sort();
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
        levels
            .into_iter()
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("/")
    }
}

/// An item content's `references`.
fn references(content: &Value) -> impl Iterator<Item = &Value> {
    content
        .get("references")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}
