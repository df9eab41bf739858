//! `#tags` in a note's text: found in the title (plain text) and in the body (Markdown,
//! outside code, links, images and raw HTML), never inside a URL or in the middle of a
//! word. The same finder gives the renderer its tag links, the storage the note's tags,
//! and a rename the places to rewrite. What a tag may hold is `app::api::tag_name`.

use std::ops::Range;

use app::api::{is_tag_char, tag_name};
use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

use super::addresses;

/// How a note's body is read as Markdown: CommonMark with GFM tables, task lists and
/// strikethrough (the renderer reads it the same way).
pub fn markdown_options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_TASKLISTS | Options::ENABLE_STRIKETHROUGH
}

/// One `#tag` in a text: where it stands (the `#` and the name, in bytes) and its name
/// as kept (folded).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TagAt {
    pub range: Range<usize>,
    pub name: String,
}

/// The tags of a note, folded, sorted, each once.
pub fn of_note(title: &str, body: &str) -> Vec<String> {
    let mut names: Vec<String> = in_plain_text(title)
        .into_iter()
        .chain(in_markdown(body))
        .map(|t| t.name)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Tags in plain text (a title, or one run of a body's text): a `#` at the start of a word
/// (nothing before it that a word or an entity is made of), outside every URL, `www.`
/// address and e-mail address.
pub fn in_plain_text(text: &str) -> Vec<TagAt> {
    if !text.contains('#') {
        return Vec::new();
    }
    let mut links: Vec<Range<usize>> = addresses::in_text(text)
        .into_iter()
        .map(|a| a.range)
        .collect();
    links.sort_by_key(|l| l.start);
    // The first address that does not end before the `#` looked at: the text is walked
    // once, and so are its addresses (a search of every address for every `#` made a
    // note of thousands of each cost millions of steps, several times a write).
    let mut next_link = 0;
    let mut found = Vec::new();
    let mut prev: Option<char> = None;
    let mut skip_to = 0;
    for (at, c) in text.char_indices() {
        let before = prev;
        prev = Some(c);
        if c != '#' || at < skip_to || before.is_some_and(joins_word) {
            continue;
        }
        while links.get(next_link).is_some_and(|l| l.end <= at) {
            next_link += 1;
        }
        // Addresses do not overlap: only this one can hold the `#`, or start after it.
        let link = links.get(next_link);
        if link.is_some_and(|l| l.contains(&at)) {
            continue;
        }
        let mut run = name_run(&text[at + 1..]);
        // A tag ends where an address begins: `#todo/https://e.com` is `todo`.
        if let Some(address) = link
            .map(|l| l.start)
            .filter(|start| *start > at && *start <= at + run.len())
        {
            run = run[..address - at - 1].trim_end_matches('/');
        }
        if let Ok(name) = tag_name(run) {
            let end = at + 1 + run.len();
            found.push(TagAt {
                range: at..end,
                name,
            });
            skip_to = end;
        }
    }
    found
}

/// A character that makes a following `#` part of its word: a letter, a digit, `_ - /`,
/// another `#`, `&` (an entity such as `&#35;`) or a backslash (an escaped `\#`).
fn joins_word(c: char) -> bool {
    is_tag_char(c) || matches!(c, '#' | '&' | '\\')
}

/// The name after a `#`: the longest run of tag characters, ending before a `//` and
/// without a trailing `/` (`#work/` at the end of a sentence is `work`).
fn name_run(after_hash: &str) -> &str {
    let end = after_hash
        .char_indices()
        .find(|(_, c)| !is_tag_char(*c))
        .map_or(after_hash.len(), |(i, _)| i);
    let mut run = &after_hash[..end];
    if let Some(double) = run.find("//") {
        run = &run[..double];
    }
    run.trim_end_matches('/')
}

/// Tags in a Markdown body, with their places in the body: in its text, not inside code
/// (inline or blocks), links, autolinks, images, raw HTML or an address.
pub fn in_markdown(body: &str) -> Vec<TagAt> {
    if !body.contains('#') {
        return Vec::new();
    }
    let mut found = Vec::new();
    let mut inside = 0usize;
    let mut run: Vec<Piece> = Vec::new();
    for (event, range) in Parser::new_ext(body, markdown_options()).into_offset_iter() {
        if let Event::Text(text) = event {
            if inside == 0 {
                run.push(Piece { range, text });
            }
            continue;
        }
        found.extend(
            in_text_run(body, &std::mem::take(&mut run))
                .into_iter()
                .map(|t| t.tag),
        );
        match event {
            Event::Start(Tag::CodeBlock(_) | Tag::Link { .. } | Tag::Image { .. }) => inside += 1,
            Event::End(TagEnd::CodeBlock | TagEnd::Link | TagEnd::Image) => {
                inside = inside.saturating_sub(1);
            }
            _ => {}
        }
    }
    found.extend(in_text_run(body, &run).into_iter().map(|t| t.tag));
    found
}

/// One text event of a body as the parser gives it: its text (escapes and entities
/// decoded) and where it stands in the body.
pub struct Piece<'a> {
    pub range: Range<usize>,
    pub text: CowStr<'a>,
}

/// A tag in a run of a body's text: where it stands in the run's text (the pieces' texts
/// one after another) and in the body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TagInRun {
    pub in_text: Range<usize>,
    pub tag: TagAt,
}

/// The tags of a run of text events in a row. The parser cuts text at `&`, `~`, `[` and
/// such, which URLs hold, so a `#` inside an address of the whole run is no tag even when
/// its own piece does not show the address whole. The Markdown renderer links exactly
/// these (and the addresses of the run), so a note's links are its tags.
pub fn in_text_run(body: &str, run: &[Piece]) -> Vec<TagInRun> {
    let mut found = Vec::new();
    let mut at = 0;
    for piece in run {
        for mut tag in in_text_event(body, piece.range.clone(), &piece.text) {
            tag.in_text = at + tag.in_text.start..at + tag.in_text.end;
            found.push(tag);
        }
        at += piece.text.len();
    }
    if run.len() > 1 && !found.is_empty() {
        let text: String = run.iter().map(|p| &*p.text).collect();
        let addresses = addresses::in_text(&text);
        found.retain(|tag| {
            !addresses
                .iter()
                .any(|a| a.range.start < tag.in_text.end && tag.in_text.start < a.range.end)
        });
    }
    found
}

/// The tags of one text event (`text`, parsed from `body[range]`), placed in its text and
/// in the body. The text is the source itself unless an escape or an entity was decoded
/// in it; then each tag is looked for in the source, and kept only where the source spells
/// it out after a word's start.
fn in_text_event(body: &str, range: Range<usize>, text: &str) -> Vec<TagInRun> {
    let source = &body[range.clone()];
    let before_run = body[..range.start].chars().next_back();
    let mut found = Vec::new();
    let mut from = 0;
    for tag in in_plain_text(text) {
        let spelled = &text[tag.range.clone()];
        let at = if source == text {
            Some(tag.range.start)
        } else {
            source[from..].find(spelled).map(|i| from + i)
        };
        let Some(at) = at else { continue };
        let before = if at == 0 {
            before_run
        } else {
            source[..at].chars().next_back()
        };
        if before.is_some_and(joins_word) {
            continue;
        }
        from = at + spelled.len();
        found.push(TagInRun {
            in_text: tag.range,
            tag: TagAt {
                range: range.start + at..range.start + from,
                name: tag.name,
            },
        });
    }
    found
}

/// `text` with every tag `from` (and every tag nested under it) renamed to `to`, the rest
/// of each name as it was written: `#Work/Meetings` renamed `work` → `job` reads
/// `#job/Meetings`. `None` if nothing was renamed.
pub fn renamed(text: &str, tags: &[TagAt], from: &str, to: &str) -> Option<String> {
    let levels = from.split('/').count();
    let mut out = String::with_capacity(text.len() + to.len());
    let mut last = 0;
    for tag in tags {
        let nested = tag.name == from
            || (tag.name.starts_with(from) && tag.name[from.len()..].starts_with('/'));
        if !nested {
            continue;
        }
        let written = &text[tag.range.start + 1..tag.range.end];
        let rest: Vec<&str> = written.split('/').skip(levels).collect();
        out.push_str(&text[last..tag.range.start]);
        out.push('#');
        out.push_str(to);
        for level in rest {
            out.push('/');
            out.push_str(level);
        }
        last = tag.range.end;
    }
    if last == 0 {
        return None;
    }
    out.push_str(&text[last..]);
    Some(out)
}

/// A note's title and body with tag `from` renamed to `to` (see [`renamed`]); `None` if
/// the note does not carry it.
pub fn rename_in_note(title: &str, body: &str, from: &str, to: &str) -> Option<(String, String)> {
    let title_after = renamed(title, &in_plain_text(title), from, to);
    let body_after = renamed(body, &in_markdown(body), from, to);
    if title_after.is_none() && body_after.is_none() {
        return None;
    }
    Some((
        title_after.unwrap_or_else(|| title.to_owned()),
        body_after.unwrap_or_else(|| body.to_owned()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(body: &str) -> Vec<String> {
        in_markdown(body).into_iter().map(|t| t.name).collect()
    }

    #[test]
    fn a_tag_starts_a_word_in_any_script_and_folds_case() {
        assert_eq!(
            names("Plan #Work and #日本語, (#travel/Japan) #2026 #to-do_list."),
            ["work", "日本語", "travel/japan", "to-do_list"]
        );
        assert_eq!(names("#हिन्दी #привет"), ["हिन्दी", "привет"]);
        assert_eq!(of_note("#B title", "#a body #b"), ["a", "b"]);
    }

    #[test]
    fn a_hash_inside_a_word_a_url_code_or_a_link_is_not_a_tag() {
        let body = "issue#12 a#b &#35;x \\#escaped\n\
                    https://example.com/#frag and www.example.com/page#part\n\
                    `#code` and\n\n```\n#block\n```\n\n\
                    [#linked](https://example.com) ![#alt](x.png) <https://e.com/#auto>\n\n\
                    # Heading is not a tag\n\n#real";
        assert_eq!(names(body), ["real"]);
        assert!(in_plain_text("see https://example.com/#frag").is_empty());
    }

    #[test]
    fn a_hash_inside_an_address_the_parser_cuts_in_pieces_is_not_a_tag() {
        // The parser gives `[`, `#t` and `]` as text events of their own.
        assert_eq!(names("https://x.example/[#t] #u"), ["u"]);
        assert_eq!(names("see www.x.example/?a=#w and #v"), ["v"]);
        assert!(in_plain_text("www.x.example/?a=#w").is_empty());
    }

    #[test]
    fn a_tag_ends_where_an_address_begins() {
        assert_eq!(names("see #todo/https://e.example/x and #b"), ["todo", "b"]);
    }

    #[test]
    fn a_tag_ends_at_punctuation_and_a_trailing_slash() {
        assert_eq!(names("#a/b/ #c//d #e.f #g"), ["a/b", "c", "e", "g"]);
    }

    #[test]
    fn a_tags_place_is_its_place_in_the_body() {
        let body = "**bold** then #tag and *#em*";
        let tags = in_markdown(body);
        let spelled: Vec<&str> = tags.iter().map(|t| &body[t.range.clone()]).collect();
        assert_eq!(spelled, ["#tag", "#em"]);
    }

    #[test]
    fn renaming_rewrites_the_tag_and_its_nested_tags_and_nothing_else() {
        let (title, body) = rename_in_note(
            "#Work plan",
            "#work/Meetings and #workshop `#work` #work",
            "work",
            "Job",
        )
        .unwrap();
        assert_eq!(title, "#Job plan");
        assert_eq!(body, "#Job/Meetings and #workshop `#work` #Job");
        assert_eq!(rename_in_note("x", "#other", "work", "job"), None);
        let (_, nested) = rename_in_note("x", "#a/b/c #a/bc", "a/b", "z").unwrap();
        assert_eq!(nested, "#z/c #a/bc");
    }
}
