//! HTML to Markdown, for the exports whose notes are HTML (Evernote's XHTML, Standard
//! Notes' rich text).
//!
//! The conversion is `htmd`'s (html5ever underneath, so any HTML parses). What it cannot
//! know (a checkbox, a file the sink stored) the caller puts in the HTML as a
//! [`Placeholders`] token and gets back in the Markdown afterwards: Markdown written into
//! the HTML as text would come out escaped (`\[x\]`).

use htmd::HtmlToMarkdown;
use htmd::options::{BulletListMarker, HrStyle, Options};

/// Frames a placeholder's number: characters of Unicode's private use area, which
/// [`strip_markers`] removes from the notes' own text so that only ours remain.
const OPEN: char = '\u{E000}';
const CLOSE: char = '\u{E001}';

/// Deeper nesting than this is flattened (tags dropped, text kept) before the
/// conversion, whose walk of the tree recurses once per level.
const MAX_DEPTH: usize = 200;

/// The stack the conversion runs on (address space; only what is used is memory).
const CONVERSION_STACK: usize = 256 * 1024 * 1024;

/// What a placeholder becomes in the Markdown.
enum Replacement {
    /// Markdown put in as it is.
    Markdown(String),
    /// The start of a task item (`[x] ` in a list item, `- [x] ` elsewhere): the
    /// whitespace that follows it in the Markdown is dropped, since the marker has its own.
    Task(String),
}

/// The Markdown the caller means at the places it marked in the HTML.
#[derive(Default)]
pub(crate) struct Placeholders {
    replacements: Vec<Replacement>,
}

impl Placeholders {
    /// The token to write into the HTML (as text) where `markdown` should stand.
    pub fn markdown(&mut self, markdown: String) -> String {
        self.push(Replacement::Markdown(markdown))
    }

    /// The token to write at the start of a checklist item's text; `in_list` says
    /// whether the item is already a list item (`<li>`), else it becomes one.
    pub fn task(&mut self, checked: bool, in_list: bool) -> String {
        let mark = if checked { "[x] " } else { "[ ] " };
        let text = if in_list {
            mark.to_owned()
        } else {
            format!("\n- {mark}")
        };
        self.push(Replacement::Task(text))
    }

    /// A token that stands for nothing until [`Placeholders::make_task`] says it is a
    /// task marker: the start of a list item, which learns it is a task only later.
    pub fn slot(&mut self) -> (usize, String) {
        let index = self.replacements.len();
        (index, self.markdown(String::new()))
    }

    /// The slot `index` becomes a task item's marker.
    pub fn make_task(&mut self, index: usize, checked: bool) {
        if let Some(slot) = self.replacements.get_mut(index) {
            let mark = if checked { "[x] " } else { "[ ] " };
            *slot = Replacement::Task(mark.to_owned());
        }
    }

    fn push(&mut self, replacement: Replacement) -> String {
        let token = format!("{OPEN}{}{CLOSE}", self.replacements.len());
        self.replacements.push(replacement);
        token
    }

    /// `markdown` with every token replaced.
    fn fill(&self, markdown: &str) -> String {
        let mut out = String::with_capacity(markdown.len());
        let mut rest = markdown;
        while let Some(start) = rest.find(OPEN) {
            out.push_str(&rest[..start]);
            let after = &rest[start + OPEN.len_utf8()..];
            let Some(end) = after.find(CLOSE) else {
                rest = after;
                continue;
            };
            rest = &after[end + CLOSE.len_utf8()..];
            match after[..end]
                .parse::<usize>()
                .ok()
                .and_then(|i| self.replacements.get(i))
            {
                Some(Replacement::Markdown(text)) => out.push_str(text),
                Some(Replacement::Task(text)) => {
                    if text.starts_with('\n') && (out.is_empty() || out.ends_with('\n')) {
                        out.push_str(&text[1..]);
                    } else {
                        out.push_str(text);
                    }
                    rest = rest.trim_start_matches([' ', '\u{a0}']);
                }
                None => {}
            }
        }
        out.push_str(rest);
        out
    }
}

/// `text` without the characters that frame placeholders (so a note's own text can never
/// be taken for one).
pub(crate) fn strip_markers(text: &str) -> String {
    text.replace([OPEN, CLOSE], "")
}

/// The Markdown for `html`, with the placeholders' tokens replaced.
pub(crate) fn to_markdown(html: &str, placeholders: &Placeholders) -> String {
    let flattened = limit_depth(html, MAX_DEPTH);
    // htmd's conversion reads from a string and cannot fail; should that change, the
    // note keeps its text rather than losing it.
    let convert = || {
        converter()
            .convert(&flattened)
            .unwrap_or_else(|_| flattened.clone())
    };
    // The depth limit is the guard; a large stack is the backstop should html5ever still
    // build deeper than it counts (a stack overflow aborts the whole server). Should no
    // thread be had, the conversion runs here, still behind the limit.
    let markdown = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("html-to-markdown".into())
            .stack_size(CONVERSION_STACK)
            .spawn_scoped(scope, convert)
            .map(|thread| thread.join())
    });
    let markdown = match markdown {
        Ok(Ok(markdown)) => markdown,
        Ok(Err(_)) => flattened.clone(),
        Err(_) => convert(),
    };
    tidy(&placeholders.fill(&markdown))
}

/// htmd set up for notes: dashes for bullets and rules, tables kept as tables.
fn converter() -> HtmlToMarkdown {
    HtmlToMarkdown::builder()
        .options(Options {
            bullet_list_marker: BulletListMarker::Dash,
            ul_bullet_spacing: 1,
            ol_number_spacing: 1,
            hr_style: HrStyle::Dashes,
            ..Options::default()
        })
        .skip_tags(vec!["script", "style", "head", "title", "meta"])
        .add_handler(vec!["table"], crate::html_table::table)
        .build()
}

/// Trailing spaces off every line, runs of blank lines down to one, no blank lines at
/// either end (empty `<div><br/></div>`s, which Evernote uses between paragraphs, leave
/// both), and no-break spaces as spaces (the converter writes one where a space met a
/// tag; in Markdown they only look like spaces that cannot be searched for).
fn tidy(markdown: &str) -> String {
    let markdown = markdown.replace('\u{a0}', " ");
    let mut out = String::with_capacity(markdown.len());
    let mut blank_run = 0;
    for line in markdown.lines() {
        let line = line.trim_end_matches([' ', '\t', '\u{a0}']);
        if line.is_empty() {
            blank_run += 1;
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
            if blank_run > 0 {
                out.push('\n');
            }
        }
        blank_run = 0;
        out.push_str(line);
    }
    out
}

/// `html` with the tags that would nest deeper than `max` levels left out (their text
/// kept). The count follows what html5ever will build, erring on the deep side: a
/// self-closed `<div/>` opens a div (only void elements close at once), an end tag closes
/// the open element of its name and everything opened after it (unless a table or cell
/// stands between, which html5ever does not look past) and is ignored when nothing of that
/// name is open, and formatting elements closed that way still count, since html5ever
/// reopens them before the next text. A dropped tag only loses formatting.
fn limit_depth(html: &str, max: usize) -> String {
    let mut out = String::with_capacity(html.len());
    let mut open = OpenElements::default();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        out.push_str(&rest[..start]);
        let tag_and_after = &rest[start..];
        let Some(end) = tag_and_after.find('>') else {
            out.push_str(tag_and_after);
            return out;
        };
        let tag = &tag_and_after[..=end];
        rest = &tag_and_after[end + 1..];
        let inner = &tag[1..tag.len() - 1];
        let name: String = inner
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect::<String>()
            .to_ascii_lowercase();
        let kept = if name.is_empty() {
            // A comment, a doctype or a stray '<': not a level.
            true
        } else if inner.starts_with('/') {
            open.close(&name)
        } else {
            VOID.contains(&name.as_str()) || open.open(name, max)
        };
        if kept {
            out.push_str(tag);
        }
    }
    out.push_str(rest);
    out
}

/// Elements that never hold anything: their start tag is the whole element.
const VOID: [&str; 14] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];

/// Elements an end tag does not look past for an open element of its name (html5ever's
/// "scope" boundaries, and a few more, which only makes the count err on the deep side).
const WALLS: [&str; 17] = [
    "applet",
    "caption",
    "html",
    "table",
    "td",
    "th",
    "marquee",
    "object",
    "template",
    "foreignobject",
    "desc",
    "title",
    "mi",
    "mo",
    "mn",
    "ms",
    "mtext",
];

/// Formatting elements, which html5ever reopens when something closed them implicitly.
const FORMATTING: [&str; 14] = [
    "a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u",
];

/// Elements a start tag of the same name closes when one is the current element.
const SELF_CLOSING_SIBLINGS: [&str; 8] = ["p", "li", "dt", "dd", "option", "tr", "td", "th"];

/// The elements [`limit_depth`] counts as open, each with whether its start tag was kept.
/// Every operation is amortised constant time, so hostile input stays linear.
#[derive(Default)]
struct OpenElements {
    stack: Vec<(String, bool)>,
    /// Where the elements of each name stand in `stack`, innermost last.
    positions: std::collections::HashMap<String, Vec<usize>>,
    /// Where the walls stand in `stack`, innermost last.
    walls: Vec<usize>,
    /// Formatting elements closed implicitly (html5ever will reopen them), by name.
    lingering: std::collections::HashMap<String, usize>,
    lingering_total: usize,
}

impl OpenElements {
    /// Opens `name`; whether its start tag is kept (it is within `max` levels).
    fn open(&mut self, name: String, max: usize) -> bool {
        if SELF_CLOSING_SIBLINGS.contains(&name.as_str())
            && self.stack.last().is_some_and(|(top, _)| *top == name)
        {
            self.pop();
        }
        let kept = self.stack.len() + self.lingering_total < max;
        let index = self.stack.len();
        if WALLS.contains(&name.as_str()) {
            self.walls.push(index);
        }
        self.positions.entry(name.clone()).or_default().push(index);
        self.stack.push((name, kept));
        kept
    }

    /// Closes the innermost open `name` in scope; whether its end tag is to be kept
    /// (its start tag was).
    fn close(&mut self, name: &str) -> bool {
        let innermost = self.positions.get(name).and_then(|p| p.last().copied());
        let wall = self.walls.last().copied().unwrap_or(0);
        let Some(at) = innermost.filter(|&at| at >= wall) else {
            // Nothing to close: html5ever ignores it, but it does end a formatting
            // element that an earlier end tag closed implicitly (so it is kept).
            if let Some(count) = self.lingering.get_mut(name).filter(|c| **c > 0) {
                *count -= 1;
                self.lingering_total -= 1;
            }
            return true;
        };
        while self.stack.len() > at + 1 {
            if let Some((inner, true)) = self.pop()
                && FORMATTING.contains(&inner.as_str())
            {
                *self.lingering.entry(inner).or_default() += 1;
                self.lingering_total += 1;
            }
        }
        self.pop().is_some_and(|(_, kept)| kept)
    }

    fn pop(&mut self) -> Option<(String, bool)> {
        let (name, kept) = self.stack.pop()?;
        let index = self.stack.len();
        if let Some(positions) = self.positions.get_mut(&name) {
            positions.pop();
        }
        if self.walls.last() == Some(&index) {
            self.walls.pop();
        }
        Some((name, kept))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn convert(html: &str) -> String {
        to_markdown(html, &Placeholders::default())
    }

    #[test]
    fn paragraphs_headings_emphasis_and_links_become_markdown() {
        let md = convert(
            "<h2>Plan</h2><p>Some <b>bold</b> and <i>italic</i> text with \
             <a href=\"https://example.com/?a=1&amp;b=2\">a link</a>.</p><div><br/></div><div>Next</div>",
        );
        assert_eq!(
            md,
            "## Plan\n\nSome **bold** and *italic* text with [a link](https://example.com/?a=1&b=2).\n\nNext"
        );
    }

    #[test]
    fn placeholders_come_back_unescaped_and_task_markers_swallow_the_space_after_them() {
        let mut p = Placeholders::default();
        let image = p.markdown("![photo.png](/files/abc)".into());
        let done = p.task(true, true);
        let open = p.task(false, false);
        let html =
            format!("<p>{image}</p><ul><li>{done} Done [1]</li></ul><div>{open} Loose todo</div>");
        let md = to_markdown(&html, &p);
        assert_eq!(
            md,
            "![photo.png](/files/abc)\n\n- [x] Done \\[1\\]\n\n- [ ] Loose todo"
        );
    }

    #[test]
    fn the_notes_own_private_use_characters_cannot_pose_as_placeholders() {
        let p = Placeholders::default();
        let text = strip_markers("a\u{E000}0\u{E001}b");
        assert_eq!(to_markdown(&text, &p), "a0b");
    }

    #[test]
    fn tables_without_header_cells_become_tables_headed_by_their_first_row() {
        let md = convert(
            "<table><tbody><tr><td><b>Item</b></td><td>Price</td></tr>\
             <tr><td>Tea | green</td><td>3</td></tr><tr><td>Cake</td></tr></tbody></table><p>After</p>",
        );
        assert_eq!(
            md,
            "| **Item** | Price |\n| --- | --- |\n| Tea \\| green | 3 |\n| Cake |  |\n\nAfter"
        );
    }

    #[test]
    fn hostile_self_closed_and_unmatched_tags_cannot_nest_the_conversion_past_the_limit() {
        let self_closed = "<div/>".repeat(600_000);
        assert_eq!(convert(&self_closed), "");
        let unmatched_ends = "<div></x>".repeat(600_000);
        assert_eq!(convert(&unmatched_ends), "");
        // Only the first levels survive; the rest are dropped as they would nest too deep.
        assert_eq!(limit_depth("<div/><p/><b>x", 2), "<div/><p/>x");
        assert_eq!(limit_depth("<b></x><i></x><u>y", 2), "<b></x><i></x>y");
    }

    #[test]
    fn an_end_tag_closes_what_html_would_close() {
        // `</b>` closes the `<i>` left open inside it, so `<u>` is on the first level again.
        assert_eq!(limit_depth("<b><i>x</b><u>y</u>", 1), "<b>x</b><u>y</u>");
        // ... but html5ever reopens a formatting element closed that way, until its own
        // end tag comes.
        assert_eq!(
            limit_depth("<b><i>x</b><u><s>y</s></u>", 2),
            "<b><i>x</b><u>y</u>"
        );
        assert_eq!(
            limit_depth("<b><i>x</b>y</i><u>z</u>", 2),
            "<b><i>x</b>y</i><u>z</u>"
        );
        // A table is a wall: `</div>` inside it does not close the div outside.
        assert_eq!(
            limit_depth("<div><table></div><tr>z", 2),
            "<div><table></div>z"
        );
    }

    #[test]
    fn nesting_deeper_than_the_limit_is_flattened_and_keeps_its_text() {
        let html = format!("{}deep{}", "<div>".repeat(50_000), "</div>".repeat(50_000));
        assert_eq!(convert(&html), "deep");
        let limited = limit_depth("<b><i><u>x</u></i></b>", 2);
        assert_eq!(limited, "<b><i>x</i></b>");
    }
}
