//! The YAML block at the top of a Markdown note (`---` … `---`), as Obsidian, Joplin and
//! most Markdown apps write it: its title, tags and times are read, and it is taken out
//! of the body.
//!
//! The YAML is read as a stream of events and only the top level is kept, so an alias
//! is never expanded (a few lines of anchors and aliases can otherwise unfold into
//! gigabytes), and a block larger than [`MAX_BYTES`] is not read as front matter.

use chrono::{DateTime, Utc};
use yaml_rust2::parser::{Event, Parser};

use crate::when::parse_instant;

/// The largest front matter read; a longer block stays in the body as text.
const MAX_BYTES: usize = 64 * 1024;

/// What a note's front matter says about it.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct FrontMatter {
    /// `title:`.
    pub title: Option<String>,
    /// `tags:` (or `tag:`), a list or a string of words (`a, b` or `#a #b`), without `#`.
    pub tags: Vec<String>,
    /// `created:`, else `date:`.
    pub created: Option<DateTime<Utc>>,
    /// `updated:`, else `modified:`.
    pub updated: Option<DateTime<Utc>>,
}

/// A top-level value: a scalar, or a list of scalars (anything else is not read).
enum Value {
    Text(String),
    List(Vec<String>),
}

/// The note's front matter, if it opens with a block that is valid YAML, and the body
/// after it; else `None` and the whole text.
pub(crate) fn split(text: &str) -> (Option<FrontMatter>, &str) {
    let Some((yaml, body)) = block(text) else {
        return (None, text);
    };
    match top_level(yaml) {
        Some(values) => (
            Some(interpret(values)),
            body.trim_start_matches(['\r', '\n']),
        ),
        None => (None, text),
    }
}

/// The YAML between the opening `---` line and the closing `---` (or `...`) line, and
/// the text after the closing line.
fn block(text: &str) -> Option<(&str, &str)> {
    let first_end = text.find('\n')?;
    if text[..first_end].trim_end() != "---" {
        return None;
    }
    let mut at = first_end + 1;
    while at < text.len() && at <= MAX_BYTES {
        let end = text[at..].find('\n').map_or(text.len(), |n| at + n);
        let line = text[at..end].trim_end();
        if line == "---" || line == "..." {
            let body = text.get(end + 1..).unwrap_or("");
            return Some((&text[first_end + 1..at], body));
        }
        at = end + 1;
    }
    None
}

/// The top-level keys with a scalar or a list of scalars as value; `None` when the YAML
/// is not valid.
fn top_level(yaml: &str) -> Option<Vec<(String, Value)>> {
    let mut parser = Parser::new_from_str(yaml);
    let mut values = Vec::new();
    let mut depth = 0usize;
    let mut key: Option<String> = None;
    let mut list: Option<Vec<String>> = None;
    loop {
        let (event, _) = parser.next_token().ok()?;
        match event {
            Event::StreamEnd | Event::DocumentEnd => break,
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                let is_list = matches!(event, Event::SequenceStart(..));
                if depth == 1 && key.is_some() && is_list {
                    list = Some(Vec::new());
                }
                depth += 1;
            }
            Event::MappingEnd | Event::SequenceEnd => {
                depth = depth.saturating_sub(1);
                if depth == 1
                    && let (Some(k), Some(items)) = (key.take(), list.take())
                {
                    values.push((k, Value::List(items)));
                }
            }
            Event::Scalar(text, ..) => match depth {
                1 => match key.take() {
                    Some(k) => values.push((k, Value::Text(text))),
                    None => key = Some(text),
                },
                2 => {
                    if let Some(items) = list.as_mut() {
                        items.push(text);
                    }
                }
                _ => {}
            },
            Event::Alias(_) => {
                if depth == 1 {
                    // A key with an alias as value: the value is not read.
                    key = None;
                }
            }
            Event::StreamStart | Event::DocumentStart | Event::Nothing => {}
        }
    }
    Some(values)
}

fn interpret(values: Vec<(String, Value)>) -> FrontMatter {
    let mut front = FrontMatter::default();
    let mut date = None;
    let mut modified = None;
    // Every `tags:` and `tag:` key's words, made the note's tags once at the end: YAML
    // takes a key many times, and the tags made again at each one was quadratic.
    let mut words: Vec<String> = Vec::new();
    for (key, value) in values {
        match (key.to_lowercase().as_str(), value) {
            ("title", Value::Text(text)) if !text.trim().is_empty() => {
                front.title = Some(text.trim().to_owned());
            }
            ("tags" | "tag", value) => match value {
                Value::List(items) => words.extend(items),
                Value::Text(text) => words.extend(
                    text.split(|c: char| c == ',' || c.is_whitespace())
                        .map(str::to_owned),
                ),
            },
            ("created", Value::Text(text)) => front.created = parse_instant(&text),
            ("date", Value::Text(text)) => date = parse_instant(&text),
            ("updated", Value::Text(text)) => front.updated = parse_instant(&text),
            ("modified", Value::Text(text)) => modified = parse_instant(&text),
            _ => {}
        }
    }
    front.tags = crate::names::note_tags(words.iter().map(|w| w.trim().trim_start_matches('#')));
    front.created = front.created.or(date);
    front.updated = front.updated.or(modified);
    front
}

#[cfg(test)]
#[path = "front_matter_tests.rs"]
mod tests;
