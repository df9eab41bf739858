//! A Standard Notes decrypted backup: `{"version":"004","items":[…]}`, as a file or as
//! the `… Standard Notes Backup and Import File.txt` of the zip the app makes.
//!
//! Tags are items of their own that point at their notes, so the backup is read twice,
//! each time as a stream of items: pass 1 keeps only the tags (and which notes an HTML
//! or code editor wrote), pass 2 hands over the notes one at a time.

mod body;
mod items;
mod source;
mod super_note;
mod tags;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::{ForeignNote, Limits, ReadError, Sink, SkipReason};
use body::{format_of, to_body};
use items::{Item, for_each_item};
use source::Json;
use tags::{Gathered, note_tags_of};

/// What an encrypted backup gets told.
const ENCRYPTED: &str = "this is an encrypted Standard Notes backup, which cannot be read \
    without its account's keys: in Standard Notes, download a decrypted backup instead \
    (the backups settings offer an encrypted or a decrypted one) and import that";

/// Reads the backup at `path` into `sink`.
pub fn read(path: &Path, sink: &mut dyn Sink, limits: &Limits) -> Result<(), ReadError> {
    let mut json = Json::open(path, limits)?;

    let mut gathered = Gathered::default();
    let shape = for_each_item(json.reader()?, limits.note_bytes, &mut |item| {
        gathered.take(item)
    })?;
    if gathered.encrypted && gathered.readable_notes == 0 {
        return Err(ReadError::Malformed(ENCRYPTED.into()));
    }
    if !shape.has_items {
        let why = if shape.has_key_params {
            ENCRYPTED
        } else {
            "this is not a Standard Notes backup: its JSON has no \"items\""
        };
        return Err(ReadError::Malformed(why.into()));
    }

    let mut notes = Notes {
        sink,
        limits,
        tags: gathered.take_note_tags(),
        gathered: &gathered,
        count: 0,
    };
    for_each_item(json.reader()?, limits.note_bytes, &mut |item| {
        notes.take(item)
    })?;
    Ok(())
}

/// Pass 2: the notes, handed over one at a time.
struct Notes<'a> {
    sink: &'a mut dyn Sink,
    limits: &'a Limits,
    tags: HashMap<String, Vec<std::rc::Rc<str>>>,
    gathered: &'a Gathered,
    count: usize,
}

impl Notes<'_> {
    fn take(&mut self, item: Item) -> Result<(), ReadError> {
        if item.content_type != "Note" {
            return Ok(());
        }
        self.count += 1;
        if self.count > self.limits.notes {
            return Err(ReadError::TooLarge(format!(
                "the backup holds more than {} notes, the most one import takes",
                self.limits.notes
            )));
        }
        if item.content.is_string() && !item.deleted {
            // Still encrypted in an otherwise decrypted backup: nothing to read but its id.
            let name = name_of("", "", &item.uuid);
            return Ok(self.sink.skipped(&name, SkipReason::Encrypted)?);
        }
        let content = &item.content;
        let title = text_field(content, "title").trim().to_owned();
        let text = text_field(content, "text");
        let name = name_of(&title, text, &item.uuid);
        // A tombstone: the note was deleted and synced away.
        if item.deleted {
            return Ok(self.sink.skipped(&name, SkipReason::Deleted)?);
        }
        if content.get("trashed").and_then(Value::as_bool) == Some(true) {
            return Ok(self.sink.skipped(&name, SkipReason::Trashed)?);
        }
        // A note with `duplicate_of` is a conflicted copy Standard Notes kept beside the
        // original; it is imported like any other, as the app shows both.
        let format = format_of(
            content,
            self.gathered.html_notes.contains(&item.uuid),
            self.gathered.code_notes.contains(&item.uuid),
            text,
        );
        let body = to_body(format, text, self.sink)?;
        let flag = |key: &str| {
            content.get(key).and_then(Value::as_bool) == Some(true)
                || content
                    .pointer(&format!("/appData/org.standardnotes.sn/{key}"))
                    .and_then(Value::as_bool)
                    == Some(true)
        };
        let tags = self.tags.remove(&item.uuid).unwrap_or_default();
        let note = ForeignNote {
            tags: note_tags_of(tags, self.limits.note_bytes)?,
            pinned: flag("pinned"),
            archived: flag("archived"),
            created_at: time(item.created_at_timestamp, item.created_at.as_deref()),
            updated_at: time(item.updated_at_timestamp, item.updated_at.as_deref()).or_else(|| {
                // Some notes carry no server time (1970): the app's own change time.
                time(
                    None,
                    content
                        .pointer("/appData/org.standardnotes.sn/client_updated_at")
                        .and_then(Value::as_str),
                )
            }),
            source_id: item.uuid,
            name,
            title,
            body,
        };
        Ok(self.sink.note(note)?)
    }
}

/// A string field of the item's content ("" when missing).
fn text_field<'v>(content: &'v Value, key: &str) -> &'v str {
    content.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// How a report names the note: its title, else its first line, else its id.
fn name_of(title: &str, text: &str, uuid: &str) -> String {
    if !title.is_empty() {
        return title.to_owned();
    }
    let first_line: String = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default()
        .chars()
        .take(80)
        .collect();
    if first_line.is_empty() {
        format!("Untitled note {uuid}")
    } else {
        first_line
    }
}

/// An item's time: its microsecond timestamp (exact), else its ISO text (milliseconds);
/// the epoch itself means the time is not known.
fn time(micros: Option<i64>, iso: Option<&str>) -> Option<DateTime<Utc>> {
    micros
        .and_then(DateTime::from_timestamp_micros)
        .or_else(|| {
            iso.and_then(|t| DateTime::parse_from_rfc3339(t).ok())
                .map(|t| t.to_utc())
        })
        .filter(|t| t.timestamp() > 0)
}
