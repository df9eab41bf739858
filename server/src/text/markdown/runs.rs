//! A run of a body's text (outside code, links and images) with its `#tags` and its bare
//! URLs, `www.` addresses and e-mail addresses made links.

use std::ops::Range;

use pulldown_cmark::{CowStr, Event, LinkType, Tag, TagEnd};

use crate::text::addresses;
use crate::text::tags::{Piece, in_text_run};

/// What a stretch of a run becomes.
enum Span {
    /// A tag, linked to its page.
    Tag(String),
    /// An address, linked to this `href`.
    Address(String),
}

/// Writes a run of text events in a row (outside code, links and images) to `out`: plain
/// stretches as text, its tags (`tags::in_text_run`, exactly the tags the note carries)
/// and its addresses as links. Addresses are looked for in the whole run, since the
/// parser cuts text at `&`, `~`, `[` and such, which URLs hold.
pub fn linked<'a>(body: &'a str, run: Vec<Piece<'a>>, out: &mut Vec<Event<'a>>) {
    let text: String = run.iter().map(|piece| &*piece.text).collect();
    let mut spans: Vec<(Range<usize>, Span)> = in_text_run(body, &run)
        .into_iter()
        .map(|found| (found.in_text, Span::Tag(found.tag.name)))
        .collect();
    spans.extend(
        addresses::in_text(&text)
            .into_iter()
            .filter_map(|a| Some((a.range, Span::Address(a.href?)))),
    );
    if spans.is_empty() {
        out.extend(run.into_iter().map(|piece| Event::Text(piece.text)));
        return;
    }
    // A run's tags lie outside its addresses (`in_text_run`), so no two spans overlap.
    spans.sort_by_key(|(range, _)| range.start);
    let mut written = 0;
    for (range, span) in spans {
        if range.start > written {
            out.push(Event::Text(text[written..range.start].to_owned().into()));
        }
        let shown: CowStr = text[range.clone()].to_owned().into();
        match span {
            Span::Tag(name) => {
                let open = format!(r#"<a href="{}" class="tag">"#, tag_href(&name));
                out.extend([
                    Event::Html(open.into()),
                    Event::Text(shown),
                    Event::Html("</a>".into()),
                ]);
            }
            Span::Address(href) => out.extend([
                Event::Start(Tag::Link {
                    link_type: LinkType::Inline,
                    dest_url: href.into(),
                    title: CowStr::Borrowed(""),
                    id: CowStr::Borrowed(""),
                }),
                Event::Text(shown),
                Event::End(TagEnd::Link),
            ]),
        }
        written = range.end;
    }
    if written < text.len() {
        out.push(Event::Text(text[written..].to_owned().into()));
    }
}

/// A tag's page: `/tags/` and the (folded) name percent-encoded, the levels of a nested
/// tag apart by `/` as written: `#Work/Réunions` → `/tags/work/r%C3%A9unions`.
pub fn tag_href(name: &str) -> String {
    let mut href = String::from("/tags/");
    for byte in name.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'/') {
            href.push(char::from(byte));
        } else {
            href.push_str(&format!("%{byte:02X}"));
        }
    }
    href
}
