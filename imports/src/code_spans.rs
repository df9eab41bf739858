//! Rewriting Markdown everywhere but inside code: what a note quotes in a code block or
//! in backticks is text, never an embed or a link to change.

use std::ops::Range;

use pulldown_cmark::{Event, Options, Parser, Tag};

/// The byte ranges of `text` that are code: fenced and indented blocks (with their
/// fences) and inline code spans (with their backticks), in order.
fn code_ranges(text: &str) -> Vec<Range<usize>> {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS;
    let mut ranges: Vec<Range<usize>> = Vec::new();
    for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
        let is_code = matches!(event, Event::Code(_) | Event::Start(Tag::CodeBlock(_)));
        // A block's range holds the spans inside it: keep only the outermost.
        if is_code && !ranges.last().is_some_and(|last| last.end > range.start) {
            ranges.push(range);
        }
    }
    ranges
}

/// `text` with every stretch outside code passed through `rewrite`, the code kept as it
/// is.
pub(crate) fn rewrite_outside_code<E>(
    text: &str,
    mut rewrite: impl FnMut(&str) -> Result<String, E>,
) -> Result<String, E> {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for code in code_ranges(text) {
        if code.start < at {
            continue;
        }
        out.push_str(&rewrite(&text[at..code.start])?);
        out.push_str(&text[code.clone()]);
        at = code.end;
    }
    out.push_str(&rewrite(&text[at..])?);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shout(text: &str) -> Result<String, ()> {
        Ok(text.to_uppercase())
    }

    #[test]
    fn code_blocks_and_inline_code_are_left_as_they_are() {
        let text = "one `two` three\n\n```\nfour\n```\n\n    five\n\nsix ~~~ \n";
        let out = rewrite_outside_code(text, shout).unwrap();
        assert_eq!(
            out,
            "ONE `two` THREE\n\n```\nfour\n```\n\n    five\n\nSIX ~~~ \n"
        );
    }

    #[test]
    fn text_without_code_is_rewritten_whole() {
        assert_eq!(rewrite_outside_code("a > b", shout).unwrap(), "A > B");
    }
}
