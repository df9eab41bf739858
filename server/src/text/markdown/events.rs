//! What a body means, as the events pulldown-cmark's HTML writer takes: the parser's own
//! events with raw HTML turned into text, soft breaks into line breaks, foreign images
//! into links, task boxes given their line, and `#tags` and bare URLs in text made links.

use std::ops::Range;

use pulldown_cmark::{CowStr, Event, LinkType, Parser, Tag, TagEnd};

use super::allowlist::is_own_file;
use super::runs::linked;
use crate::text::tags::{Piece, markdown_options};

/// The events to write for `body`.
pub fn rendered(body: &str) -> Vec<Event<'_>> {
    let parsed = tables_within_bounds(
        body,
        Parser::new_ext(body, markdown_options())
            .into_offset_iter()
            .collect(),
    );
    let mut walk = Walk {
        body,
        lines: Lines::new(body),
        out: Vec::with_capacity(parsed.len()),
        run: Vec::new(),
        in_code: 0,
        in_link: 0,
        images: Vec::new(),
        in_html_block: false,
        break_pending: false,
    };
    let task_items: Vec<bool> = (0..parsed.len())
        .map(|at| {
            matches!(parsed[at].0, Event::Start(Tag::Item))
                && starts_with_task_marker(&parsed[at + 1..])
        })
        .collect();
    for ((event, range), is_task_item) in parsed.into_iter().zip(task_items) {
        if is_task_item {
            walk.flush_run();
            walk.out.push(Event::Html(TASK_ITEM.into()));
        } else {
            walk.take(event, range);
        }
    }
    walk.flush_run();
    flattened(walk.out)
}

/// The most cells a table may have to be written as a table. The parser pads every row to
/// its header's width, so 3 KB of `|a|a|…` over a few hundred short rows is a quarter of a
/// million cells (2.4 MB of HTML, a third of a second to sanitize).
const MAX_TABLE_CELLS: usize = 5_000;

/// The parsed events with each table of more than [`MAX_TABLE_CELLS`] cells shown as its
/// source, in a code block: nothing typed is lost, and no page is drowned.
fn tables_within_bounds<'a>(
    body: &'a str,
    parsed: Vec<(Event<'a>, Range<usize>)>,
) -> Vec<(Event<'a>, Range<usize>)> {
    let mut out = Vec::with_capacity(parsed.len());
    let mut events = parsed.into_iter().peekable();
    while let Some((event, range)) = events.next() {
        if !matches!(event, Event::Start(Tag::Table(_))) {
            out.push((event, range));
            continue;
        }
        let mut table = vec![(event, range.clone())];
        let mut cells = 0;
        for (inner, inner_range) in events.by_ref() {
            let ends = matches!(inner, Event::End(TagEnd::Table));
            cells += usize::from(matches!(inner, Event::Start(Tag::TableCell)));
            table.push((inner, inner_range));
            if ends {
                break;
            }
        }
        if cells <= MAX_TABLE_CELLS {
            out.extend(table);
            continue;
        }
        let kind = pulldown_cmark::CodeBlockKind::Indented;
        out.push((Event::Start(Tag::CodeBlock(kind)), range.clone()));
        out.push((Event::Text(body[range.clone()].into()), range.clone()));
        out.push((Event::End(TagEnd::CodeBlock), range));
    }
    out
}

/// The start of a task's item, written by hand for its class (its end is the item's).
const TASK_ITEM: &str = r#"<li class="task">"#;

/// How deep elements may nest. Markdown nests quotes and lists without end (`>>>>…`), and
/// an HTML parser's work grows with the square of the depth (100,000 `>` took ammonia over
/// three minutes); nobody reads 32 levels, so deeper ones are left out, their text kept.
const MAX_DEPTH: usize = 32;

/// The events with every element deeper than [`MAX_DEPTH`] left out (start and end).
fn flattened(events: Vec<Event<'_>>) -> Vec<Event<'_>> {
    let mut kept_starts: Vec<bool> = Vec::new();
    let mut depth = 0;
    let mut out = Vec::with_capacity(events.len());
    for event in events {
        let opens = matches!(&event, Event::Start(_))
            || matches!(&event, Event::Html(html) if html.as_ref() == TASK_ITEM);
        if opens {
            let keep = depth < MAX_DEPTH;
            kept_starts.push(keep);
            if keep {
                depth += 1;
                out.push(event);
            }
        } else if matches!(event, Event::End(_)) {
            if kept_starts.pop().unwrap_or(false) {
                depth -= 1;
                out.push(event);
            }
        } else {
            out.push(event);
        }
    }
    out
}

/// Whether an item's events (those after its start) open with a task box: `- [ ] x`, or
/// in a loose list `- [ ] x` inside its first paragraph.
fn starts_with_task_marker(after_start: &[(Event, Range<usize>)]) -> bool {
    matches!(
        after_start,
        [(Event::TaskListMarker(_), _), ..]
            | [
                (Event::Start(Tag::Paragraph), _),
                (Event::TaskListMarker(_), _),
                ..
            ]
    )
}

/// An image being written, from its start to its end.
enum OpenImage<'a> {
    /// One of the person's own files: an `<img>`.
    Shown,
    /// From anywhere else: a link to it, its alt text (or its address) as the link's text.
    AsLink { dest: CowStr<'a>, text_from: usize },
    /// From anywhere else inside a link (a link cannot hold a link): its alt text.
    AsText { dest: CowStr<'a>, text_from: usize },
    /// An image inside another's alt text: only its own alt text counts.
    Nested,
}

struct Walk<'a> {
    body: &'a str,
    lines: Lines,
    out: Vec<Event<'a>>,
    /// Text events in a row (outside code, links and images) not yet written: bare URLs
    /// are looked for across them (the parser cuts text at `&`, `~`, `[`…).
    run: Vec<Piece<'a>>,
    in_code: usize,
    in_link: usize,
    images: Vec<OpenImage<'a>>,
    in_html_block: bool,
    /// Inside a block of raw HTML (shown as text): a line ended, its break not written
    /// yet (the block's last line break is not one).
    break_pending: bool,
}

impl<'a> Walk<'a> {
    fn take(&mut self, event: Event<'a>, range: Range<usize>) {
        if let Event::Text(text) = event {
            if self.in_code == 0 && self.in_link == 0 && self.images.is_empty() {
                self.run.push(Piece { range, text });
            } else {
                self.out.push(Event::Text(text));
            }
            return;
        }
        self.flush_run();
        if !self.images.is_empty() {
            self.take_in_image(event);
            return;
        }
        match event {
            Event::Html(html) | Event::InlineHtml(html) => self.html_as_text(html),
            Event::Start(Tag::HtmlBlock) => {
                self.in_html_block = true;
                self.out.push(Event::Start(Tag::Paragraph));
            }
            Event::End(TagEnd::HtmlBlock) => {
                self.in_html_block = false;
                self.break_pending = false;
                self.out.push(Event::End(TagEnd::Paragraph));
            }
            Event::SoftBreak => self.out.push(Event::HardBreak),
            Event::TaskListMarker(ticked) => {
                let line = self.lines.task_line(self.body, range.start);
                self.out.push(Event::Html(task_box(line, ticked).into()));
            }
            Event::Start(Tag::CodeBlock(kind)) => {
                self.in_code += 1;
                self.out.push(Event::Start(Tag::CodeBlock(kind)));
            }
            Event::End(TagEnd::CodeBlock) => {
                self.in_code = self.in_code.saturating_sub(1);
                self.out.push(Event::End(TagEnd::CodeBlock));
            }
            Event::Start(link @ Tag::Link { .. }) => {
                self.in_link += 1;
                self.out.push(Event::Start(link));
            }
            Event::End(TagEnd::Link) => {
                self.in_link = self.in_link.saturating_sub(1);
                self.out.push(Event::End(TagEnd::Link));
            }
            Event::Start(Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            }) => self.open_image(link_type, dest_url, title, id),
            other => self.out.push(other),
        }
    }

    /// An image starts: shown if it is one of the person's own files, else a link to it
    /// (no request leaves the page by itself: no tracking pixels).
    fn open_image(
        &mut self,
        link_type: LinkType,
        dest_url: CowStr<'a>,
        title: CowStr<'a>,
        id: CowStr<'a>,
    ) {
        let text_from = self.out.len();
        let image = if is_own_file(&dest_url) {
            self.out.push(Event::Start(Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            }));
            OpenImage::Shown
        } else if self.in_link > 0 {
            OpenImage::AsText {
                dest: dest_url,
                text_from,
            }
        } else {
            self.out.push(Event::Start(Tag::Link {
                link_type: LinkType::Inline,
                dest_url: dest_url.clone(),
                title,
                id: CowStr::Borrowed(""),
            }));
            OpenImage::AsLink {
                dest: dest_url,
                text_from: text_from + 1,
            }
        };
        self.images.push(image);
    }

    /// Inside an image only its alt text counts (what the writer puts in `alt`, or the
    /// link's text): emphasis, links and images nested in it are left out, code and
    /// breaks kept as plain text.
    fn take_in_image(&mut self, event: Event<'a>) {
        match event {
            Event::Start(Tag::Image { .. }) => self.images.push(OpenImage::Nested),
            Event::End(TagEnd::Image) => self.close_image(),
            Event::Code(text) | Event::Html(text) | Event::InlineHtml(text) => {
                self.out.push(Event::Text(text));
            }
            Event::SoftBreak | Event::HardBreak => self.out.push(Event::Text(" ".into())),
            _ => {}
        }
    }

    fn close_image(&mut self) {
        match self.images.pop() {
            Some(OpenImage::Shown) => self.out.push(Event::End(TagEnd::Image)),
            Some(OpenImage::AsLink { dest, text_from }) => {
                if self.out.len() == text_from {
                    self.out.push(Event::Text(dest));
                }
                self.out.push(Event::End(TagEnd::Link));
            }
            Some(OpenImage::AsText { dest, text_from }) => {
                if self.out.len() == text_from {
                    self.out.push(Event::Text(dest));
                }
            }
            Some(OpenImage::Nested) | None => {}
        }
    }

    /// Raw HTML typed in a body, shown as the text it is; each of its line breaks is a
    /// line break, like the rest of the body's.
    fn html_as_text(&mut self, html: CowStr<'a>) {
        let mut lines = html.split('\n').peekable();
        while let Some(line) = lines.next() {
            let last = lines.peek().is_none();
            if last && line.is_empty() {
                break;
            }
            if std::mem::take(&mut self.break_pending) {
                self.out.push(Event::HardBreak);
            }
            let line = line.strip_suffix('\r').unwrap_or(line);
            if !line.is_empty() {
                self.out.push(Event::Text(CowStr::Boxed(line.into())));
            }
            if !last {
                self.break_pending = true;
            }
        }
        if !self.in_html_block && std::mem::take(&mut self.break_pending) {
            // Inline HTML that ends a line: no block end follows to drop the break.
            self.out.push(Event::HardBreak);
        }
    }

    /// Writes the text run waiting, with its tags and bare URLs made links.
    fn flush_run(&mut self) {
        if self.run.is_empty() {
            return;
        }
        let run = std::mem::take(&mut self.run);
        linked(self.body, run, &mut self.out);
    }
}

/// A task's box: disabled until the page can save a tick; `data-line` (the item's line in
/// the body) only where `app::api::toggle_task` finds the task on that line.
fn task_box(line: Option<usize>, ticked: bool) -> String {
    let line = line.map_or(String::new(), |n| format!(r#" data-line="{n}""#));
    let checked = if ticked { " checked" } else { "" };
    format!("<input type=\"checkbox\"{line} disabled{checked}>\n")
}

/// Where the body's lines start, to tell a task's line from its byte offset.
struct Lines {
    /// Byte offsets of every `\n`.
    breaks: Vec<usize>,
}

impl Lines {
    fn new(body: &str) -> Self {
        Self {
            breaks: body.match_indices('\n').map(|(at, _)| at).collect(),
        }
    }

    /// The 1-based line of the task box whose `[` is at `offset`, if ticking that line
    /// (`toggle_task`) flips exactly this box — a box the browser could not tick gets no
    /// line (`- - [ ] x`, a nested list on its parent's line, for one).
    fn task_line(&self, body: &str, offset: usize) -> Option<usize> {
        let index = self.breaks.partition_point(|&at| at < offset);
        let start = if index == 0 {
            0
        } else {
            self.breaks[index - 1] + 1
        };
        let end = self.breaks.get(index).copied().unwrap_or(body.len());
        let line = body.get(start..end)?;
        let mark = offset.checked_sub(start)? + 1;
        let toggled = app::api::toggle_task(line, 1)?;
        (toggled.as_bytes().get(mark) != line.as_bytes().get(mark)).then_some(index + 1)
    }
}
