//! Joplin, from a `.jex` (a tar) or a zip of a RAW export or a sync folder: every item is
//! a `.md` file in Joplin's own format ([`crate::joplin_item`]), and each resource's bytes
//! sit in `resources/<id>.<ext>` (RAW, JEX) or `.resource/<id>` (a sync folder).
//!
//! The export is read twice. The first pass keeps the small items (folders, tags, which
//! note has which tag, resources' names and types) and where each note is; the second
//! reads one note at a time, hands the resources it shows to the sink (each once per
//! import, streamed from the archive), and makes the note:
//! - its folder, with the folders above it, becomes a tag `Parent/Child`; its tags are
//!   tags;
//! - `![…](:/<resource id>)` and `[…](:/<resource id>)` become links to the kept file
//!   (`<img src=":/<id>">` gets the file's address); links to other notes (`:/<note id>`)
//!   stay as Joplin wrote them; a resource the export lacks is named in words;
//! - the user's times (`user_created_time`, `user_updated_time`) are preferred to the
//!   sync times;
//! - a to-do's body opens with a task item holding its title (`- [ ] title`, or `- [x]`
//!   when completed), then a blank line;
//! - a note in Joplin's trash (`deleted_time` set) is skipped; a conflict copy is
//!   imported like any note. An end-to-end encrypted export cannot be read (Joplin's own
//!   export writes the notes decrypted).

use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;

use crate::attachments::{not_in_export, shown};
use crate::bundle::Bundle;
use crate::code_spans::rewrite_outside_code;
use crate::html_markdown::{Placeholders, strip_markers, to_markdown};
use crate::joplin_item::{Item, ItemType, is_joplin_id};
use crate::joplin_links::{rewrite_item_attributes, rewrite_item_links};
use crate::when::parse_instant;
use crate::{FileIn, FileStored, ForeignNote, Limits, ReadError, Sink, SkipReason};

/// The longest MIME type kept (the first pass keeps every resource's).
const MIME_CHARS: usize = 100;
/// The deepest folder nesting followed (a loop of `parent_id`s ends there too).
const FOLDER_DEPTH: usize = 32;

/// A folder: its name and the folder it is in.
struct Folder {
    title: String,
    parent: String,
}

/// A resource's name and type, and where its bytes are.
struct Resource {
    name: String,
    mime: Option<String>,
    blob: Option<Rc<str>>,
}

/// What the first pass keeps.
#[derive(Default)]
struct Index {
    folders: HashMap<String, Folder>,
    tags: HashMap<String, String>,
    note_tags: HashMap<String, Vec<String>>,
    resources: HashMap<String, Resource>,
    /// The entries that hold notes, in the archive's order.
    notes: Vec<Rc<str>>,
}

/// Reads the Joplin export at `path` into `sink`.
pub fn read(path: &Path, sink: &mut dyn Sink, limits: &Limits) -> Result<(), ReadError> {
    let mut bundle = Bundle::open(path, limits)?;
    let index = index(&mut bundle, limits)?;
    let mut handed: HashMap<String, FileStored> = HashMap::new();
    for entry in &index.notes {
        let text = bundle.read_text(entry, limits.note_bytes)?;
        let Some(item) = Item::parse(&text) else {
            continue;
        };
        let note = note_of(&item, &index, &mut bundle, &mut handed, sink)?;
        match note {
            Made::Note(note) => sink.note(note)?,
            Made::Deleted(name) => sink.skipped(&name, SkipReason::Deleted)?,
            Made::Encrypted(name) => sink.skipped(&name, SkipReason::Encrypted)?,
        }
    }
    Ok(())
}

/// The first pass: the small items, and where the notes are.
fn index(bundle: &mut Bundle, limits: &Limits) -> Result<Index, ReadError> {
    let names = bundle.file_names();
    let mut blobs: HashMap<&str, Rc<str>> = HashMap::new();
    for name in &names {
        if let Some(id) = resource_blob_id(name) {
            blobs.insert(id, Rc::clone(name));
        }
    }
    let mut index = Index::default();
    for name in names.iter().filter(|n| n.ends_with(".md")) {
        if resource_blob_id(name).is_some() {
            continue;
        }
        let text = bundle.read_text(name, limits.note_bytes)?;
        let Some(item) = Item::parse(&text) else {
            continue;
        };
        let Some(id) = item.id().map(str::to_owned) else {
            continue;
        };
        match item.item_type() {
            ItemType::Note => {
                index.notes.push(Rc::clone(name));
                if index.notes.len() > limits.notes {
                    return Err(ReadError::TooLarge(format!(
                        "the export holds more than {} notes, the most one import takes",
                        limits.notes
                    )));
                }
            }
            ItemType::Folder => {
                // Only an id can name a parent: anything else in the field is not kept.
                let parent = Some(item.get("parent_id")).filter(|p| is_joplin_id(p));
                let folder = Folder {
                    title: short(&item.title),
                    parent: parent.unwrap_or_default().to_owned(),
                };
                index.folders.insert(id, folder);
            }
            ItemType::Tag => {
                index.tags.insert(id, short(&item.title));
            }
            ItemType::NoteTag => {
                let (note, tag) = (item.get("note_id"), item.get("tag_id"));
                if is_joplin_id(note) && is_joplin_id(tag) {
                    index
                        .note_tags
                        .entry(note.to_owned())
                        .or_default()
                        .push(tag.to_owned());
                }
            }
            ItemType::Resource => {
                let resource = Resource {
                    name: resource_name(&item, &id),
                    mime: Some(item.get("mime"))
                        .filter(|m| !m.is_empty())
                        .map(|m| m.chars().take(MIME_CHARS).collect()),
                    blob: blobs.get(id.as_str()).cloned(),
                };
                index.resources.insert(id, resource);
            }
            ItemType::Other => {}
        }
    }
    Ok(index)
}

/// What a note item becomes.
enum Made {
    Note(ForeignNote),
    /// In Joplin's trash: skipped, under this name.
    Deleted(String),
    /// End-to-end encrypted (its text is ciphertext): skipped, under this name, and the
    /// rest of the export still imported.
    Encrypted(String),
}

fn note_of(
    item: &Item,
    index: &Index,
    bundle: &mut Bundle,
    handed: &mut HashMap<String, FileStored>,
    sink: &mut dyn Sink,
) -> Result<Made, ReadError> {
    let id = item.id().unwrap_or_default().to_owned();
    let name = if item.title.trim().is_empty() {
        id.clone()
    } else {
        item.title.clone()
    };
    if item.flag("deleted_time") {
        return Ok(Made::Deleted(name));
    }
    if item.flag("encryption_applied") {
        return Ok(Made::Encrypted(name));
    }
    let body = rewrite_outside_code(&item.body, |text| {
        let text = rewrite_item_links(text, |link| -> Result<Option<String>, ReadError> {
            let Some(resource) = index.resources.get(link.id) else {
                return Ok(None);
            };
            let shown_as = if link.text.trim().is_empty() {
                resource.name.as_str()
            } else {
                link.text
            };
            Ok(Some(
                match hand_over(link.id, resource, bundle, handed, sink)? {
                    Some(stored) => shown(shown_as, stored, resource.mime.as_deref()),
                    None => not_in_export(&resource.name),
                },
            ))
        })?;
        let mut failed = None;
        let text = rewrite_item_attributes(&text, |id| {
            let resource = index.resources.get(id)?;
            match hand_over(id, resource, bundle, handed, sink) {
                Ok(Some(FileStored::Stored { sha256 })) => Some(format!("/files/{sha256}")),
                Ok(_) => None,
                Err(e) => {
                    failed.get_or_insert(e);
                    None
                }
            }
        });
        match failed {
            Some(e) => Err(e),
            None => Ok(text),
        }
    })?;
    // An HTML note (a web clip, a note written in Joplin's rich text editor): its HTML,
    // its files pointed at already, made Markdown.
    let body = if item.get("markup_language") == "2" {
        to_markdown(&strip_markers(&body), &Placeholders::default())
    } else {
        body
    };
    let body = if item.flag("is_todo") {
        let mark = if item.flag("todo_completed") {
            "x"
        } else {
            " "
        };
        let title = item.title.replace(['\r', '\n'], " ");
        if body.is_empty() {
            format!("- [{mark}] {title}")
        } else {
            format!("- [{mark}] {title}\n\n{body}")
        }
    } else {
        body
    };
    Ok(Made::Note(ForeignNote {
        source_id: id.clone(),
        name,
        title: item.title.clone(),
        body,
        created_at: time_of(item, "user_created_time", "created_time"),
        updated_at: time_of(item, "user_updated_time", "updated_time"),
        tags: tags_of(item, &id, index),
        pinned: false,
        archived: false,
    }))
}

/// Hands the resource's bytes to the sink, once per import; `None` when the export does
/// not hold them.
fn hand_over<'a>(
    id: &str,
    resource: &Resource,
    bundle: &mut Bundle,
    handed: &'a mut HashMap<String, FileStored>,
    sink: &mut dyn Sink,
) -> Result<Option<&'a FileStored>, ReadError> {
    let Some(blob) = &resource.blob else {
        return Ok(None);
    };
    if !handed.contains_key(id) {
        let stored = bundle.with_entry(blob, |bytes| {
            sink.file(FileIn {
                name: &resource.name,
                content_type: resource.mime.as_deref(),
                bytes,
            })
        })??;
        handed.insert(id.to_owned(), stored);
    }
    Ok(handed.get(id))
}

/// The note's folder path (`Parent/Child`) and its tags.
fn tags_of(item: &Item, id: &str, index: &Index) -> Vec<String> {
    let mut tags = Vec::new();
    let mut path = Vec::new();
    let mut folder = item.get("parent_id");
    while let Some(found) = index.folders.get(folder) {
        if path.len() == FOLDER_DEPTH {
            break;
        }
        path.push(found.title.as_str());
        folder = &found.parent;
    }
    if !path.is_empty() {
        path.reverse();
        tags.push(path.join("/"));
    }
    // Sorted: the archive's order (a `.jex` and a RAW folder differ) must not show.
    let mut named: Vec<&str> = index
        .note_tags
        .get(id)
        .into_iter()
        .flatten()
        .filter_map(|tag| index.tags.get(tag))
        .map(String::as_str)
        .collect();
    named.sort_unstable();
    crate::names::note_tags(tags.iter().map(String::as_str).chain(named))
}

fn time_of(item: &Item, preferred: &str, otherwise: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    parse_instant(item.get(preferred)).or_else(|| parse_instant(item.get(otherwise)))
}

/// The id a resource's bytes are filed under: `resources/<id>.<ext>` or `.resource/<id>`.
fn resource_blob_id(name: &str) -> Option<&str> {
    let (folder, file) = name.rsplit_once('/')?;
    let folder = folder.rsplit('/').next().unwrap_or(folder);
    if !matches!(folder, "resources" | ".resource") {
        return None;
    }
    let stem = file.split('.').next().unwrap_or(file);
    is_joplin_id(stem).then_some(stem)
}

/// A resource's name as the person knows it: its title, else its file name, else its id
/// and extension.
fn resource_name(item: &Item, id: &str) -> String {
    let title = item.title.trim();
    let file = item.get("filename");
    let name = if !title.is_empty() {
        title.to_owned()
    } else if !file.is_empty() {
        file.to_owned()
    } else {
        match item.get("file_extension") {
            "" => id.to_owned(),
            ext => format!("{id}.{ext}"),
        }
    };
    short(&name)
}

fn short(text: &str) -> String {
    crate::names::kept(text)
}

#[cfg(test)]
#[path = "joplin_tests.rs"]
mod tests;
