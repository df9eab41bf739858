//! Evernote's `.enex` export: XML, `<en-export><note>…</note>…</en-export>`, read as a
//! stream of events so that only one note (its content and the table of its resources)
//! is held at a time.
//!
//! A note's `<content>` is an ENML document in CDATA that points at the note's files by
//! the MD5 of their bytes (`<en-media hash>`); the files themselves (`<resource>`, base64)
//! come after the content, each with its name and type after its data. So each resource
//! is decoded into a temporary file beside the export while its MD5 is computed, then
//! handed to the sink; when the note ends, its content is converted with every
//! `<en-media>` pointing at the stored file.

mod content;
mod resource;
#[cfg(test)]
mod tests;
mod tracked;

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use chrono::{DateTime, NaiveDateTime, Utc};
use quick_xml::Reader;
use quick_xml::events::Event;

use crate::{FileIn, ForeignNote, Limits, ReadError, Sink, SkipReason};
use content::{Resource, resolve_reference, to_note_markdown};
use resource::{Spooled, skip_text, spool_base64};
use tracked::Tracked;

/// ENEX elements nest five deep (`en-export/note/resource/resource-attributes/file-name`);
/// deeper is not an export.
const MAX_DEPTH: usize = 16;

/// What one resource's entry in a note's table counts for against `Limits::note_bytes`.
const RESOURCE_WEIGHT: u64 = 256;

/// Reads the `.enex` at `path` into `sink`, note by note.
pub fn read(path: &Path, sink: &mut dyn Sink, limits: &Limits) -> Result<(), ReadError> {
    let file = BufReader::with_capacity(64 * 1024, File::open(path)?);
    read_from(file, path, sink, limits)
}

/// Where the text of the element being read goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Title,
    Content,
    Created,
    Updated,
    Tag,
    Deleted,
    Mime,
    FileName,
}

/// What one `<note>` has said so far.
#[derive(Default)]
struct NoteParts {
    /// Its place in the file, from 1.
    index: usize,
    title: String,
    content: String,
    created: String,
    updated: String,
    tags: Vec<String>,
    deleted: bool,
    resources: Vec<Resource>,
    /// The current `<resource>`: its decoded bytes, type and name.
    spooled: Option<Spooled>,
    mime: String,
    file_name: String,
    /// How many bytes of text the note holds (bounded by `Limits::note_bytes`).
    held: u64,
}

impl NoteParts {
    /// How a message names the note.
    fn describe(&self) -> String {
        if self.title.trim().is_empty() {
            format!("note {}", self.index)
        } else {
            format!("note {} ({})", self.index, self.title.trim())
        }
    }

    /// The string the text of `field` goes to (none for `<deleted>`, which only needs
    /// to be seen).
    fn field(&mut self, field: Field) -> Option<&mut String> {
        match field {
            Field::Title => Some(&mut self.title),
            Field::Content => Some(&mut self.content),
            Field::Created => Some(&mut self.created),
            Field::Updated => Some(&mut self.updated),
            Field::Mime => Some(&mut self.mime),
            Field::FileName => Some(&mut self.file_name),
            Field::Tag => self.tags.last_mut(),
            Field::Deleted => None,
        }
    }
}

/// The reading of one export.
struct EnexReader<'a, R> {
    xml: Reader<Tracked<R>>,
    /// The export's path: resources are spooled beside it.
    export: &'a Path,
    sink: &'a mut dyn Sink,
    limits: &'a Limits,
    /// The names of the open elements.
    path: Vec<String>,
    notes: usize,
    /// How many notes so far were created at each time (a note's id is its creation
    /// time and how many came before it with the same one).
    created_seen: std::collections::HashMap<String, usize>,
    note: Option<NoteParts>,
    field: Option<Field>,
    seen_root: bool,
}

fn read_from<R: BufRead>(
    source: R,
    export: &Path,
    sink: &mut dyn Sink,
    limits: &Limits,
) -> Result<(), ReadError> {
    // One event may hold a whole note's content, and a little markup around it.
    let cap = limits.note_bytes.saturating_add(64 * 1024);
    let mut xml = Reader::from_reader(Tracked::new(source, cap));
    xml.config_mut().check_end_names = true;
    let mut reader = EnexReader {
        xml,
        export,
        sink,
        limits,
        path: Vec::new(),
        notes: 0,
        created_seen: std::collections::HashMap::new(),
        note: None,
        field: None,
        seen_root: false,
    };
    reader.run()
}

impl<R: BufRead> EnexReader<'_, R> {
    fn run(&mut self) -> Result<(), ReadError> {
        let mut buf = Vec::new();
        loop {
            buf.clear();
            self.xml.get_mut().start_event();
            let event = match self.xml.read_event_into(&mut buf) {
                Ok(event) => event,
                Err(e) => return Err(self.xml_error(&e)),
            };
            match event {
                Event::Start(e) => {
                    let name = e.name().0.to_owned();
                    self.start(name, false)?;
                }
                Event::Empty(e) => {
                    let name = e.name().0.to_owned();
                    self.start(name, true)?;
                    self.end()?;
                }
                Event::End(_) => self.end()?,
                Event::Text(t) => self.text(&t)?,
                Event::CData(t) => self.text(&t)?,
                Event::GeneralRef(r) => self.text(&resolve_reference(&r))?,
                Event::Eof => return self.finish(),
                _ => {}
            }
        }
    }

    fn line(&self) -> u64 {
        self.xml.get_ref().line()
    }

    fn xml_error(&self, error: &quick_xml::Error) -> ReadError {
        let tracked = self.xml.get_ref();
        if tracked.was_over() {
            return self.too_large();
        }
        if let quick_xml::Error::Io(e) = error {
            return ReadError::Io(std::io::Error::new(e.kind(), e.to_string()));
        }
        // Syntax errors are things left unclosed at the end of the input.
        let cut = if matches!(error, quick_xml::Error::Syntax(_)) {
            " (the file seems cut short)"
        } else {
            ""
        };
        ReadError::Malformed(format!(
            "the Evernote file is not well-formed XML near line {} (byte {}): {error}{cut}; \
             export the notebook again from Evernote",
            tracked.line(),
            tracked.offset()
        ))
    }

    fn too_large(&self) -> ReadError {
        let which = self
            .note
            .as_ref()
            .map_or_else(|| format!("near line {}", self.line()), NoteParts::describe);
        ReadError::TooLarge(format!(
            "{which} holds more than {} bytes of text, the most one note may hold",
            self.limits.note_bytes
        ))
    }

    /// An element begins (`empty`: and ends at once, `<data/>`, so has no text).
    fn start(&mut self, name: String, empty: bool) -> Result<(), ReadError> {
        if !self.seen_root {
            if name != "en-export" {
                return Err(ReadError::Malformed(format!(
                    "this is not an Evernote export: its first element is <{name}>, not <en-export>"
                )));
            }
            self.seen_root = true;
        }
        if self.path.len() >= MAX_DEPTH {
            return Err(ReadError::Malformed(format!(
                "the Evernote file nests elements deeper than an export does (line {})",
                self.line()
            )));
        }
        let parent = self.path.last().map(String::as_str);
        self.field = None;
        match (parent, name.as_str()) {
            (Some("en-export"), "note") => {
                self.notes += 1;
                if self.notes > self.limits.notes {
                    return Err(ReadError::TooLarge(format!(
                        "the export holds more than {} notes, the most one import takes",
                        self.limits.notes
                    )));
                }
                self.note = Some(NoteParts {
                    index: self.notes,
                    ..NoteParts::default()
                });
            }
            (Some("note"), "title") => self.field = Some(Field::Title),
            (Some("note"), "content") => self.field = Some(Field::Content),
            (Some("note"), "created") => self.field = Some(Field::Created),
            (Some("note"), "updated") => self.field = Some(Field::Updated),
            (Some("note"), "deleted") => self.field = Some(Field::Deleted),
            (Some("note"), "tag") => {
                if let Some(note) = self.note.as_mut() {
                    // Even an empty tag takes room: counted like text, so tags are bounded.
                    note.held = note.held.saturating_add(32);
                    if note.held > self.limits.note_bytes {
                        return Err(self.too_large());
                    }
                    note.tags.push(String::new());
                }
                self.field = Some(Field::Tag);
            }
            (Some("resource"), "mime") => self.field = Some(Field::Mime),
            (Some("resource-attributes"), "file-name") => self.field = Some(Field::FileName),
            (Some("resource"), "data") if !empty => self.spool()?,
            _ => {}
        }
        if let Some(Field::Deleted) = self.field
            && let Some(note) = self.note.as_mut()
        {
            note.deleted = true;
        }
        self.path.push(name);
        Ok(())
    }

    /// Decodes a `<data>`'s base64 (read straight from the file, past the XML reader,
    /// whose next event is then `</data>`).
    fn spool(&mut self) -> Result<(), ReadError> {
        let Some(note) = self.note.as_mut().filter(|n| !n.deleted) else {
            // Not imported: read past it, whatever its size.
            skip_text(self.xml.get_mut())?;
            return Ok(());
        };
        let spooled = spool_base64(self.xml.get_mut(), self.export)?;
        note.spooled = Some(spooled);
        Ok(())
    }

    fn text(&mut self, text: &str) -> Result<(), ReadError> {
        let (Some(field), Some(note)) = (self.field, self.note.as_mut()) else {
            return Ok(());
        };
        note.held = note.held.saturating_add(text.len() as u64);
        if note.held > self.limits.note_bytes {
            return Err(self.too_large());
        }
        if let Some(kept) = note.field(field) {
            kept.push_str(text);
        }
        Ok(())
    }

    fn end(&mut self) -> Result<(), ReadError> {
        self.field = None;
        let Some(name) = self.path.pop() else {
            return Ok(());
        };
        match name.as_str() {
            "resource" => self.hand_over_resource()?,
            "note" if self.path.len() == 1 => {
                if let Some(note) = self.note.take() {
                    self.hand_over_note(note)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Gives the resource just read to the sink, remembering what it answered.
    fn hand_over_resource(&mut self) -> Result<(), ReadError> {
        let Some(note) = self.note.as_mut() else {
            return Ok(());
        };
        let mime = std::mem::take(&mut note.mime).trim().to_owned();
        let file_name = std::mem::take(&mut note.file_name).trim().to_owned();
        let Some(mut spooled) = note.spooled.take() else {
            return Ok(());
        };
        // The table of a note's resources is held until the note ends: each counts
        // against the note's bytes, so one note cannot list a million tiny files.
        note.held = note.held.saturating_add(RESOURCE_WEIGHT);
        if note.held > self.limits.note_bytes {
            return Err(self.too_large());
        }
        let name = if file_name.is_empty() {
            "attachment".to_owned()
        } else {
            file_name
        };
        let mime = (!mime.is_empty()).then_some(mime);
        let mut bytes = BufReader::new(spooled.rewind()?);
        let stored = self.sink.file(FileIn {
            name: &name,
            content_type: mime.as_deref(),
            bytes: &mut bytes,
        })?;
        note.resources.push(Resource {
            md5: spooled.md5,
            name,
            mime,
            stored,
        });
        Ok(())
    }

    fn hand_over_note(&mut self, note: NoteParts) -> Result<(), ReadError> {
        let title = note.title.trim().to_owned();
        let name = if title.is_empty() {
            format!("Untitled note {}", note.index)
        } else {
            title.clone()
        };
        let created = note.created.trim();
        // No ids in an ENEX. Evernote lists notes by last change, so a note's place moves
        // when another is edited, and a title can be renamed: the creation time is what
        // stays, told apart from other notes of the same second by how many of those came
        // before it. Only a note without one is named by its place.
        let source_id = if created.is_empty() {
            format!("#{}", note.index)
        } else {
            let seen = self.created_seen.entry(created.to_owned()).or_default();
            let id = format!("{created}/{seen}");
            *seen += 1;
            id
        };
        if note.deleted {
            self.sink.skipped(&name, SkipReason::Deleted)?;
            return Ok(());
        }
        let body = to_note_markdown(note.content.trim(), &note.resources, self.sink)?;
        self.sink.note(ForeignNote {
            source_id,
            name,
            title,
            body,
            created_at: parse_time(created),
            updated_at: parse_time(&note.updated),
            tags: crate::names::note_tags(note.tags.iter().map(String::as_str)),
            pinned: false,
            archived: false,
        })?;
        Ok(())
    }

    fn finish(&self) -> Result<(), ReadError> {
        if !self.seen_root {
            return Err(ReadError::Malformed(
                "this is not an Evernote export: it has no <en-export> element".into(),
            ));
        }
        if let Some(open) = self.path.last() {
            let which = self
                .note
                .as_ref()
                .map_or_else(String::new, |n| format!(" in {}", n.describe()));
            return Err(ReadError::Malformed(format!(
                "the Evernote file ends inside <{open}>{which} (line {}): it seems cut short; \
                 export the notebook again from Evernote",
                self.line()
            )));
        }
        Ok(())
    }
}

/// An ENEX time: basic ISO 8601 in UTC, `20200528T141404Z`.
fn parse_time(text: &str) -> Option<DateTime<Utc>> {
    NaiveDateTime::parse_from_str(text.trim(), "%Y%m%dT%H%M%SZ")
        .ok()
        .map(|t| t.and_utc())
}
