//! A folder of Markdown files (an Obsidian vault, or any folder), zipped: each `.md` (or
//! `.markdown`) file is a note.
//!
//! - The title is the front matter's `title:`, else the file's name without `.md`. The
//!   front matter is taken out of the body; its `tags:` become tags, `created:` (or
//!   `date:`) and `updated:` (or `modified:`) the times ([`crate::front_matter`]); with no
//!   updated time there, the zip entry's time is used (read as UTC).
//! - The note's folder becomes a tag (`Projects/2024/Plan.md` is tagged `Projects/2024`);
//!   when the whole zip is one folder (the vault's own), that folder is not part of it.
//!   Hidden folders (`.obsidian/`) are not read; notes in Obsidian's `.trash/` are skipped.
//! - `#tags` in the text stay as they are (oncenote reads them itself), and so do
//!   `[[wikilinks]]`.
//! - A file the note shows (`![[white.png]]`, `![alt](white.png)`, `[doc](a%20b.pdf)`),
//!   found beside the note, from the vault's top, or by its name anywhere in the vault
//!   ([`crate::vault`]), is handed to the sink once per import and linked. An embedded
//!   *note* (`![[Other note]]`, `![[note#Heading]]`) becomes a wikilink to it
//!   (`[[Other note]]`): oncenote does not show one note inside another. An embed of a
//!   file the vault lacks is named in words; a Markdown link or image the vault has no
//!   file for (a web address, say) stays as written. Code blocks and inline code are never
//!   changed, nor is broken embed syntax.
//! - Files no note refers to are not imported.

use std::collections::HashMap;
use std::path::Path;

use percent_encoding::percent_decode_str;

use crate::archive::Archive;
use crate::attachments::{content_type_from_name, not_in_export, shown};
use crate::code_spans::rewrite_outside_code;
use crate::front_matter;
use crate::vault::{Vault, is_note};
use crate::vault_links::{Reference, rewrite_references};
use crate::{FileIn, FileStored, ForeignNote, Limits, ReadError, Sink, SkipReason};

/// Reads the zipped folder at `path` into `sink`.
pub fn read(path: &Path, sink: &mut dyn Sink, limits: &Limits) -> Result<(), ReadError> {
    let mut zip = Archive::open(path, limits)?;
    let vault = Vault::new(zip.file_names());
    let count = vault.notes().len() + vault.trashed().len();
    if count > limits.notes {
        return Err(ReadError::TooLarge(format!(
            "the folder holds {count} notes; at most {} are imported at once",
            limits.notes
        )));
    }
    for entry in vault.trashed() {
        sink.skipped(&stem_of(entry), SkipReason::Trashed)?;
    }
    let mut handed: HashMap<String, FileStored> = HashMap::new();
    for entry in vault.notes() {
        let modified = zip.open_entry(entry)?.1;
        let text = zip.read_text(entry, limits.note_bytes)?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let (front, body) = front_matter::split(text);
        let front = front.unwrap_or_default();
        let relative = vault.relative(entry);
        let folder = relative.rsplit_once('/').map_or("", |(folder, _)| folder);
        let mut files = Files {
            zip: &mut zip,
            vault: &vault,
            handed: &mut handed,
            sink: &mut *sink,
        };
        let body = rewrite_outside_code(body, |text| {
            rewrite_references(text, |reference| files.replace(folder, reference))
        })?;
        let title = front.title.unwrap_or_else(|| stem_of(entry));
        let tags = crate::names::note_tags(
            front
                .tags
                .iter()
                .map(String::as_str)
                .chain(std::iter::once(folder)),
        );
        sink.note(ForeignNote {
            // Below the vault's top folder: zipped with or without it, a note is the same.
            source_id: relative.to_owned(),
            name: title.clone(),
            title,
            body,
            created_at: front.created,
            updated_at: front.updated.or(modified.map(|t| t.and_utc())),
            tags,
            pinned: false,
            archived: false,
        })?;
    }
    Ok(())
}

/// The note's file name without its extension.
fn stem_of(entry: &str) -> String {
    let file = entry.rsplit('/').next().unwrap_or(entry);
    let stem = file.rsplit_once('.').map_or(file, |(stem, _)| stem);
    stem.to_owned()
}

/// What a note's references need: the zip to stream files from, the vault to find them
/// in, what was handed over already, and the sink.
struct Files<'a> {
    zip: &'a mut Archive,
    vault: &'a Vault,
    handed: &'a mut HashMap<String, FileStored>,
    sink: &'a mut dyn Sink,
}

impl Files<'_> {
    /// What a reference in a note in `folder` becomes (`None`: it stays as written).
    fn replace(
        &mut self,
        folder: &str,
        reference: Reference<'_>,
    ) -> Result<Option<String>, ReadError> {
        match reference {
            Reference::Embed { inner, target } => {
                let file = target.split('#').next().unwrap_or(target).trim();
                let found = self
                    .vault
                    .find(folder, file)
                    .or_else(|| self.vault.find(folder, &format!("{file}.md")));
                match found {
                    Some(entry) if !is_note(entry) => {
                        let name = file.rsplit('/').next().unwrap_or(file);
                        self.hand_over(entry, name, name).map(Some)
                    }
                    None if looks_like_file(file) => Ok(Some(not_in_export(file))),
                    _ => Ok(Some(format!("[[{inner}]]"))),
                }
            }
            Reference::Link { text, address, .. } => {
                let Some(file) = local_path(address) else {
                    return Ok(None);
                };
                match self.vault.find(folder, &file) {
                    Some(entry) if !is_note(entry) => {
                        let name = entry.rsplit('/').next().unwrap_or(entry);
                        let shown_as = if text.trim().is_empty() { name } else { text };
                        self.hand_over(entry, name, shown_as).map(Some)
                    }
                    _ => Ok(None),
                }
            }
        }
    }

    /// Hands the entry to the sink (once per import) and says how the note shows it.
    fn hand_over(&mut self, entry: &str, name: &str, shown_as: &str) -> Result<String, ReadError> {
        let content_type = content_type_from_name(entry);
        if !self.handed.contains_key(entry) {
            let (mut bytes, _) = self.zip.open_entry(entry)?;
            let stored = self.sink.file(FileIn {
                name,
                content_type,
                bytes: &mut bytes,
            })?;
            self.handed.insert(entry.to_owned(), stored);
        }
        Ok(match self.handed.get(entry) {
            Some(stored) => shown(shown_as, stored, content_type),
            None => not_in_export(name),
        })
    }
}

/// The vault path a Markdown link's address names, decoded (`a%20b.pdf` → `a b.pdf`,
/// without `#…` or `?…`); `None` for a web address, a `data:` or `mailto:` one, one from
/// the site's root, or one only to a place in the note.
fn local_path(address: &str) -> Option<String> {
    let before_scheme_end = address.split(['/', '?', '#']).next().unwrap_or("");
    if address.starts_with(['/', '#']) || before_scheme_end.contains(':') {
        return None;
    }
    let path = address.split(['#', '?']).next().unwrap_or("");
    let decoded = percent_decode_str(path).decode_utf8_lossy().into_owned();
    (!decoded.trim().is_empty()).then_some(decoded)
}

/// Whether an embed's target names a file by its extension (`white.png`), not a note
/// (`Meeting 2024.05`, `note-with-frontmatter`).
fn looks_like_file(target: &str) -> bool {
    target.rsplit_once('.').is_some_and(|(stem, extension)| {
        !stem.is_empty()
            && (1..=5).contains(&extension.len())
            && extension.chars().all(|c| c.is_ascii_alphanumeric())
            && extension.chars().any(|c| c.is_ascii_alphabetic())
            && !is_note(target)
    })
}

#[cfg(test)]
#[path = "markdown_vault_tests.rs"]
mod tests;
