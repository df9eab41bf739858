//! An .enex note's content (an ENML document: XHTML plus `<en-note>`, `<en-todo>`,
//! `<en-media>`, `<en-crypt>`) rewritten into plain HTML for the Markdown conversion,
//! with what Markdown says differently (checkboxes, files, code blocks) put in as
//! [`Placeholders`].

use std::collections::{HashMap, HashSet};

use quick_xml::escape::{escape, resolve_predefined_entity};
use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use crate::data_url::DataUrl;
use crate::html_markdown::{Placeholders, strip_markers, to_markdown};
use crate::{FileStored, ReadError, Sink, file_markdown};

/// A `<resource>` of the note, already handed to the sink.
pub(super) struct Resource {
    /// The MD5 of its bytes, in hex.
    pub md5: String,
    pub name: String,
    pub mime: Option<String>,
    pub stored: FileStored,
}

impl Resource {
    /// How the note shows it: a link to the stored file, else its name (never the
    /// sink's reason, which may change between imports).
    fn markdown(&self) -> String {
        match &self.stored {
            FileStored::Stored { sha256 } => {
                file_markdown(&self.name, sha256, self.mime.as_deref())
            }
            FileStored::Refused { .. } => crate::attachments::not_kept(&self.name),
        }
    }
}

/// The attributes kept on the HTML elements (the rest is Evernote's styling).
const KEPT_ATTRIBUTES: [&str; 6] = ["href", "src", "alt", "title", "colspan", "rowspan"];

/// An element open in the rewrite.
enum Open {
    /// Written out: closed with its name.
    Element(String),
    /// Left out (its text kept): `<en-note>`, a `<div>` in a list item.
    Dropped,
    /// A list item (its `<div>`s are left out so its text stays on the item's line).
    /// Its start holds a placeholder slot, which a legacy `<en-todo>` anywhere inside it
    /// (often inside `<b>`, where a marker would come out emphasised) makes a task marker.
    ListItem,
    /// A list; `checklist` for Evernote 10's `<ul style="--en-todo:true">`, and
    /// `in_item` when it was moved into the item before it (Evernote writes nested lists
    /// as siblings of the items, which Markdown cannot show).
    List {
        name: String,
        checklist: bool,
        in_item: bool,
    },
    /// An Evernote code block (`--en-codeblock:true`), its text gathered as it is.
    CodeBlock,
    /// `<en-crypt>`: its text is ciphertext.
    Encrypted,
}

/// The note's content as Markdown: each `<en-media>` shows its resource (by MD5), each
/// `data:` image is handed to `sink` first. Resources no `<en-media>` shows are listed at
/// the end, so none is lost.
pub(super) fn to_note_markdown(
    content: &str,
    resources: &[Resource],
    sink: &mut dyn Sink,
) -> Result<String, ReadError> {
    let content = strip_markers(content);
    let mut rewrite = Rewrite {
        html: String::with_capacity(content.len()),
        placeholders: Placeholders::default(),
        open: Vec::new(),
        items: Vec::new(),
        ciphers: 0,
        item_open_after: None,
        code: None,
        resources: resources.iter().map(|r| (r.md5.as_str(), r)).collect(),
        shown: HashSet::new(),
        sink,
    };
    let mut reader = Reader::from_str(&content);
    let config = reader.config_mut();
    config.check_end_names = false;
    config.allow_unmatched_ends = true;
    config.allow_dangling_amp = true;
    loop {
        match reader.read_event() {
            Ok(Event::Eof) => break,
            Ok(event) => rewrite.event(event)?,
            // Not well-formed after all: the HTML parser makes what it can of the rest.
            Err(_) => {
                let at = usize::try_from(reader.buffer_position())
                    .unwrap_or(content.len())
                    .min(content.len());
                let rest = content.get(at..).unwrap_or("");
                rewrite.html.push_str(rest);
                break;
            }
        }
    }
    let mut markdown = to_markdown(&rewrite.html, &rewrite.placeholders);
    for resource in resources {
        if !rewrite.shown.contains(resource.md5.as_str()) {
            if !markdown.is_empty() {
                markdown.push_str("\n\n");
            }
            markdown.push_str(&resource.markdown());
        }
    }
    Ok(markdown)
}

struct Rewrite<'a> {
    html: String,
    placeholders: Placeholders,
    open: Vec<Open>,
    /// The open list items' slots, and whether a task marker took each already.
    items: Vec<(usize, bool)>,
    /// How many `<en-crypt>`s are open (kept apart from `open`, which may be deep).
    ciphers: usize,
    /// A list item was ended at this depth: it is closed once what follows is not a list
    /// to nest in it.
    item_open_after: Option<usize>,
    /// The text of the code block being read.
    code: Option<String>,
    /// The note's resources by their MD5.
    resources: HashMap<&'a str, &'a Resource>,
    shown: HashSet<&'a str>,
    sink: &'a mut dyn Sink,
}

impl<'a> Rewrite<'a> {
    fn event(&mut self, event: Event<'_>) -> Result<(), ReadError> {
        if self.code.is_some() || self.in_encrypted() {
            self.inside_code_or_cipher(event);
            return Ok(());
        }
        let nests_list = matches!(&event, Event::Start(e) if is_list(e.name().0));
        let is_blank = matches!(&event, Event::Text(t) if t.trim().is_empty());
        if self.item_open_after == Some(self.open.len()) && !nests_list && !is_blank {
            self.html.push_str("</li>");
            self.item_open_after = None;
        }
        match event {
            Event::Start(e) => self.start(&e, false)?,
            Event::Empty(e) => self.start(&e, true)?,
            Event::End(_) => self.end(),
            Event::Text(t) => self.html.push_str(&t),
            Event::CData(t) => self.html.push_str(&escape(t.into_inner())),
            Event::GeneralRef(r) => {
                self.html.push('&');
                self.html.push_str(&r);
                self.html.push(';');
            }
            _ => {}
        }
        Ok(())
    }

    fn in_encrypted(&self) -> bool {
        self.ciphers > 0
    }

    fn start(&mut self, e: &BytesStart<'_>, empty: bool) -> Result<(), ReadError> {
        let name = e.name().0.to_ascii_lowercase();
        let style = attribute(e, "style").unwrap_or_default();
        let opened = match name.as_str() {
            "en-note" => Open::Dropped,
            "en-todo" => {
                let checked = attribute(e, "checked").is_some_and(|v| v == "true");
                match self.items.last_mut() {
                    Some((slot, used @ false)) => {
                        self.placeholders.make_task(*slot, checked);
                        *used = true;
                    }
                    in_item => {
                        let token = self.placeholders.task(checked, in_item.is_some());
                        self.html.push_str(&token);
                    }
                }
                Open::Dropped
            }
            "en-media" => {
                let hash = attribute(e, "hash")
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                let shown = self.media(&hash, attribute(e, "type"));
                let token = self.placeholders.markdown(shown);
                self.html.push_str(&token);
                Open::Dropped
            }
            "en-crypt" => {
                let token = self
                    .placeholders
                    .markdown("*(encrypted in Evernote)*".into());
                self.html.push_str(&token);
                self.ciphers += 1;
                Open::Encrypted
            }
            "img" => {
                self.image(e)?;
                Open::Dropped
            }
            "div" if style.contains("--en-codeblock:true") => {
                self.code = Some(String::new());
                Open::CodeBlock
            }
            "div" if matches!(self.open.last(), Some(Open::ListItem)) => Open::Dropped,
            "li" => {
                self.html.push_str("<li>");
                let (slot, token) = self.placeholders.slot();
                self.html.push_str(&token);
                let checklist = matches!(
                    self.open.last(),
                    Some(Open::List {
                        checklist: true,
                        ..
                    })
                );
                if checklist {
                    self.placeholders
                        .make_task(slot, style.contains("--en-checked:true"));
                }
                self.items.push((slot, checklist));
                Open::ListItem
            }
            "ul" | "ol" => {
                let in_item = self.item_open_after.take().is_some();
                self.html.push('<');
                self.html.push_str(&name);
                self.html.push('>');
                Open::List {
                    name,
                    checklist: style.contains("--en-todo:true"),
                    in_item,
                }
            }
            _ => {
                self.html.push('<');
                self.html.push_str(&name);
                for key in KEPT_ATTRIBUTES {
                    if let Some(value) = attribute(e, key) {
                        self.html.push(' ');
                        self.html.push_str(key);
                        self.html.push_str("=\"");
                        self.html.push_str(&escape(value.as_str()));
                        self.html.push('"');
                    }
                }
                self.html.push('>');
                Open::Element(name)
            }
        };
        if empty {
            self.close(opened);
        } else {
            self.open.push(opened);
        }
        Ok(())
    }

    fn end(&mut self) {
        if let Some(open) = self.open.pop() {
            self.close(open);
        }
    }

    fn close(&mut self, open: Open) {
        match open {
            Open::Element(name) => {
                if !is_void(&name) {
                    self.html.push_str("</");
                    self.html.push_str(&name);
                    self.html.push('>');
                }
            }
            Open::Dropped => {}
            Open::Encrypted => self.ciphers = self.ciphers.saturating_sub(1),
            Open::ListItem => {
                self.items.pop();
                self.item_open_after = Some(self.open.len());
            }
            Open::List { name, in_item, .. } => {
                self.html.push_str("</");
                self.html.push_str(&name);
                self.html.push('>');
                if in_item {
                    self.item_open_after = Some(self.open.len());
                }
            }
            Open::CodeBlock => {
                let code = self.code.take().unwrap_or_default();
                self.html.push_str("<pre><code>");
                self.html.push_str(&escape(code.trim_end_matches('\n')));
                self.html.push_str("</code></pre>");
            }
        }
    }

    /// Inside a code block its text is kept as it is (each `<div>` a line); inside
    /// `<en-crypt>` nothing is kept.
    fn inside_code_or_cipher(&mut self, event: Event<'_>) {
        match event {
            Event::Start(e) => self
                .open
                .push(Open::Element(e.name().0.to_ascii_lowercase())),
            Event::End(_) => {
                let ended = self.open.pop();
                match (&ended, self.code.as_mut()) {
                    (Some(Open::Element(name)), Some(code)) if name == "div" || name == "p" => {
                        code.push('\n')
                    }
                    (Some(Open::CodeBlock | Open::Encrypted), _) => {
                        if let Some(open) = ended {
                            self.close(open);
                        }
                    }
                    _ => {}
                }
            }
            Event::Empty(e) => {
                if let Some(code) = self.code.as_mut()
                    && e.name().0.eq_ignore_ascii_case("br")
                {
                    code.push('\n');
                }
            }
            Event::Text(t) => {
                if let Some(code) = self.code.as_mut() {
                    code.push_str(&t);
                }
            }
            Event::CData(t) => {
                if let Some(code) = self.code.as_mut() {
                    code.push_str(&t);
                }
            }
            Event::GeneralRef(r) => {
                if let Some(code) = self.code.as_mut() {
                    code.push_str(&resolve_reference(&r));
                }
            }
            _ => {}
        }
    }

    /// The Markdown for `<en-media hash>`: its resource's link, else its name, else a
    /// word saying a file was there.
    fn media(&mut self, hash: &str, mime: Option<String>) -> String {
        match self.resources.get(hash).copied() {
            Some(resource) => {
                self.shown.insert(resource.md5.as_str());
                resource.markdown()
            }
            None => match mime {
                Some(mime) => format!("(a missing attachment of type {mime})"),
                None => "(a missing attachment)".into(),
            },
        }
    }

    /// `<img>`: a `data:` image becomes a file of its own; any other stays an image
    /// link (the server's sanitizer decides whether it is shown).
    fn image(&mut self, e: &BytesStart<'_>) -> Result<(), ReadError> {
        let src = attribute(e, "src").unwrap_or_default();
        let alt = attribute(e, "alt").unwrap_or_default();
        if let Some(image) = DataUrl::decode(&src) {
            let shown = image.store(self.sink)?;
            let token = self.placeholders.markdown(shown);
            self.html.push_str(&token);
        } else if !src.starts_with("data:") && !src.is_empty() {
            self.html.push_str("<img src=\"");
            self.html.push_str(&escape(src.as_str()));
            self.html.push_str("\" alt=\"");
            self.html.push_str(&escape(alt.as_str()));
            self.html.push_str("\">");
        }
        Ok(())
    }
}

fn is_list(name: &str) -> bool {
    name.eq_ignore_ascii_case("ul") || name.eq_ignore_ascii_case("ol")
}

fn is_void(name: &str) -> bool {
    matches!(name, "br" | "hr" | "img" | "col" | "wbr" | "area")
}

/// An attribute's value, its references resolved (an unknown one is kept as written).
fn attribute(e: &BytesStart<'_>, key: &str) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| a.key.0.eq_ignore_ascii_case(key))
        .map(|a| match a.normalized_value(XmlVersion::Implicit1_0) {
            Ok(value) => value.into_owned(),
            Err(_) => a.value.into_owned(),
        })
}

/// The text a reference stands for (`&amp;`, `&#160;`); HTML's entities beyond XML's
/// five are kept as written, except the common no-break space.
pub(super) fn resolve_reference(r: &BytesRef<'_>) -> String {
    if let Ok(Some(c)) = r.resolve_char_ref() {
        return c.to_string();
    }
    let name: &str = r;
    match resolve_predefined_entity(name) {
        Some(text) => text.to_owned(),
        None if name == "nbsp" => " ".into(),
        None => format!("&{name};"),
    }
}
