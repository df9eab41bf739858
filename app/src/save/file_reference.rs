//! What a file added to a note becomes in its text: a Markdown reference to
//! `/files/{sha256}` put where the cursor was — `![name](…)` for the images the note page
//! shows inline (the server serves only these four types inline), `[name](…)` for
//! anything else, which the page shows as a link.

use crate::api::file_href;

/// The types a note shows as images. Any other file is a link.
pub const INLINE_IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// Whether a file of `content_type` is shown inline as an image.
pub fn shows_inline(content_type: &str) -> bool {
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    INLINE_IMAGE_TYPES.contains(&essence.as_str())
}

/// The Markdown reference to the file `sha256` named `name`.
pub fn markdown_reference(name: &str, content_type: &str, sha256: &str) -> String {
    let href = file_href(sha256);
    if shows_inline(content_type) {
        format!("![{}]({href})", link_text(name, "image"))
    } else {
        format!("[{}]({href})", link_text(name, "file"))
    }
}

/// The name as link text: brackets, parentheses and backslashes escaped (a `]` would end
/// the text early), line breaks made spaces, `fallback` for a file with no name.
fn link_text(name: &str, fallback: &str) -> String {
    let name = name.trim();
    if name.is_empty() {
        return fallback.to_owned();
    }
    let mut text = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '\\' | '[' | ']' | '(' | ')' => {
                text.push('\\');
                text.push(c);
            }
            '\r' | '\n' => text.push(' '),
            _ => text.push(c),
        }
    }
    text
}

/// `text` with the selection from `start` to `end` replaced by `insert`, and where the
/// cursor goes after it. Offsets count UTF-16 code units, as a textarea's
/// `selectionStart` does; past the end means the end, inside a surrogate pair after it.
pub fn insert_at(text: &str, start: u32, end: u32, insert: &str) -> (String, u32) {
    let (start, end) = (start.min(end), start.max(end));
    let from = byte_index(text, start);
    let to = byte_index(text, end).max(from);
    let mut out = String::with_capacity(text.len() + insert.len());
    out.push_str(&text[..from]);
    out.push_str(insert);
    out.push_str(&text[to..]);
    let cursor = text[..from].encode_utf16().count() + insert.encode_utf16().count();
    (out, cursor as u32)
}

/// The byte index of the UTF-16 offset `units` in `text` (its end when past it).
fn byte_index(text: &str, units: u32) -> usize {
    let mut seen = 0u32;
    for (at, c) in text.char_indices() {
        if seen >= units {
            return at;
        }
        seen += c.len_utf16() as u32;
    }
    text.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    #[test]
    fn the_four_image_types_are_images_and_everything_else_is_a_link() {
        assert_eq!(
            markdown_reference("cat.png", "image/png", SHA),
            format!("![cat.png](/files/{SHA})")
        );
        assert_eq!(
            markdown_reference("p.jpg", "IMAGE/JPEG; q=1", SHA),
            format!("![p.jpg](/files/{SHA})")
        );
        for kind in ["image/svg+xml", "text/html", "application/pdf", ""] {
            assert_eq!(
                markdown_reference("x", kind, SHA),
                format!("[x](/files/{SHA})"),
                "{kind}"
            );
        }
    }

    #[test]
    fn brackets_and_parentheses_in_a_name_are_escaped_and_a_nameless_file_is_named() {
        assert_eq!(
            markdown_reference("a]b)(c[d\\.pdf", "application/pdf", SHA),
            format!("[a\\]b\\)\\(c\\[d\\\\.pdf](/files/{SHA})")
        );
        assert_eq!(
            markdown_reference("two\nlines", "text/plain", SHA),
            format!("[two lines](/files/{SHA})")
        );
        assert_eq!(
            markdown_reference("  ", "image/gif", SHA),
            format!("![image](/files/{SHA})")
        );
    }

    #[test]
    fn the_reference_goes_where_the_cursor_was_counting_utf16_like_the_textarea() {
        assert_eq!(insert_at("ab", 1, 1, "X"), ("aXb".to_owned(), 2));
        // The selection is replaced.
        assert_eq!(
            insert_at("hello world", 6, 11, "X"),
            ("hello X".to_owned(), 7)
        );
        // "é" is one unit, "😀" two: offset 3 is after both.
        assert_eq!(insert_at("é😀z", 3, 3, "X"), ("é😀Xz".to_owned(), 4));
        // Past the end, or reversed: at the end / the ordered selection.
        assert_eq!(insert_at("ab", 9, 9, "X"), ("abX".to_owned(), 3));
        assert_eq!(insert_at("abcd", 3, 1, "X"), ("aXd".to_owned(), 2));
    }
}
