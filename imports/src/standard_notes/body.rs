//! A Standard Notes note's text as Markdown: the app stores whatever its editor wrote
//! (Markdown or plain text, HTML from the rich-text editors, code, a Super note's JSON).

use serde_json::Value;

use super::super_note;
use super::tags::{CODE_EDITORS, HTML_EDITORS};
use crate::html_markdown::{Placeholders, strip_markers, to_markdown};

/// How a note's text is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    /// Markdown or plain text (oncenote shows a plain text's line breaks as they are).
    Markdown,
    Html,
    /// Code or data (a spreadsheet's, an authenticator's JSON): a code block.
    Code,
    /// A Super note: the editor's state as JSON.
    Super,
}

/// The note's format from what it says (`noteType`, `editorIdentifier`), what pass 1
/// learnt from the editors' items, and last from the text itself.
pub(super) fn format_of(
    content: &Value,
    html_editor: bool,
    code_editor: bool,
    text: &str,
) -> Format {
    let note_type = content.get("noteType").and_then(Value::as_str);
    let editor = content
        .get("editorIdentifier")
        .and_then(Value::as_str)
        .unwrap_or_default();
    match note_type {
        Some("super") => return Format::Super,
        Some("rich-text") => return Format::Html,
        Some("code" | "spreadsheet" | "authentication") => return Format::Code,
        Some("plain-text" | "markdown" | "task") => return Format::Markdown,
        _ => {}
    }
    if HTML_EDITORS.contains(&editor) || html_editor {
        Format::Html
    } else if CODE_EDITORS.contains(&editor) || code_editor {
        Format::Code
    } else if looks_like_html(text) {
        Format::Html
    } else {
        Format::Markdown
    }
}

/// Text that begins with a tag, ends with one and closes one (`<p>…</p>`).
fn looks_like_html(text: &str) -> bool {
    let text = text.trim();
    let mut chars = text.chars();
    chars.next() == Some('<')
        && chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && text.ends_with('>')
        && text.contains("</")
}

/// The text as Markdown.
pub(super) fn to_body(format: Format, text: &str) -> String {
    match format {
        Format::Markdown => text.to_owned(),
        Format::Html => to_markdown(&strip_markers(text), &Placeholders::default()),
        Format::Code => fenced(text),
        Format::Super => super_note::to_markdown(text).unwrap_or_else(|| text.to_owned()),
    }
}

/// `text` in a fenced code block, its fence longer than any run of backticks inside.
fn fenced(text: &str) -> String {
    if text.trim().is_empty() {
        return String::new();
    }
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}\n{}\n{fence}", text.trim_end_matches('\n'))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_format_comes_from_the_note_type_then_the_editor_then_the_text() {
        let plain = json!({"noteType": "plain-text"});
        assert_eq!(format_of(&plain, true, false, "<p>x</p>"), Format::Markdown);
        assert_eq!(
            format_of(&json!({"noteType": "rich-text"}), false, false, "x"),
            Format::Html
        );
        let plus = json!({"editorIdentifier": "org.standardnotes.plus-editor"});
        assert_eq!(format_of(&plus, false, false, "x"), Format::Html);
        assert_eq!(format_of(&json!({}), true, false, "x"), Format::Html);
        assert_eq!(format_of(&json!({}), false, true, "x"), Format::Code);
        assert_eq!(
            format_of(&json!({}), false, false, "<p>a</p>"),
            Format::Html
        );
        assert_eq!(
            format_of(&json!({}), false, false, "a <b> c"),
            Format::Markdown
        );
        assert_eq!(
            format_of(&json!({"noteType": "super"}), false, false, "{}"),
            Format::Super
        );
    }

    #[test]
    fn code_is_fenced_past_its_own_backticks() {
        assert_eq!(
            to_body(Format::Code, "a ```` b\n"),
            "`````\na ```` b\n`````"
        );
        assert_eq!(to_body(Format::Code, "x = 1"), "```\nx = 1\n```");
    }
}
