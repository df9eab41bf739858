//! Finding where a Joplin note points at one of its items: Markdown links and images
//! whose address is `:/<id>` (`![photo.jpg](:/933c…)`, `[x](:/933c… "title")`), and HTML
//! attributes holding `":/<id>"` (`<img src=":/933c…">`).

use crate::joplin_item::is_joplin_id;

/// A Markdown link to an item, as the note wrote it.
pub(crate) struct ItemLink<'a> {
    /// The link's text (an image's alt text).
    pub text: &'a str,
    /// The item's id.
    pub id: &'a str,
}

/// `text` with each Markdown link to an item replaced by what `replace` makes of it
/// (`None` keeps the link as it was: a link to another note, say).
pub(crate) fn rewrite_item_links<E>(
    text: &str,
    mut replace: impl FnMut(ItemLink<'_>) -> Result<Option<String>, E>,
) -> Result<String, E> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("](:/") {
        let after = &rest[at + 4..];
        let found = after
            .get(..32)
            .filter(|id| is_joplin_id(id))
            .and_then(|id| link_end(&after[32..]).map(|end| (id, 32 + end)))
            .and_then(|(id, end)| link_open(&rest[..at]).map(|open| (id, end, open)));
        let Some((id, end, open)) = found else {
            out.push_str(&rest[..at + 4]);
            rest = &rest[at + 4..];
            continue;
        };
        let is_image = rest[..open].ends_with('!');
        let start = if is_image { open - 1 } else { open };
        let link = ItemLink {
            text: &rest[open + 1..at],
            id,
        };
        let whole_end = at + 4 + end;
        out.push_str(&rest[..start]);
        match replace(link)? {
            Some(replacement) => out.push_str(&replacement),
            None => out.push_str(&rest[start..whole_end]),
        }
        rest = &rest[whole_end..];
    }
    out.push_str(rest);
    Ok(out)
}

/// `text` with each HTML attribute value `":/<id>"` replaced by `"<address>"` where
/// `address` gives one for that id.
pub(crate) fn rewrite_item_attributes(
    text: &str,
    mut address: impl FnMut(&str) -> Option<String>,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("\":/") {
        let after = &rest[at + 3..];
        let target = after
            .get(..33)
            .filter(|quoted| quoted.ends_with('"') && is_joplin_id(&quoted[..32]))
            .and_then(|quoted| address(&quoted[..32]));
        match target {
            Some(address) => {
                out.push_str(&rest[..at + 1]);
                out.push_str(&address);
                out.push('"');
                rest = &after[33..];
            }
            None => {
                out.push_str(&rest[..at + 3]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Where the link's `(…)` closes, in the text after its id: at once, or after a quoted
/// title (`:/id "title")`), on the same line.
fn link_end(after_id: &str) -> Option<usize> {
    if after_id.starts_with(')') {
        return Some(1);
    }
    let line = after_id.split('\n').next().unwrap_or("");
    let trimmed = line.trim_start();
    let quote = trimmed.chars().next().filter(|c| matches!(c, '"' | '\''))?;
    let skipped = line.len() - trimmed.len();
    let close = trimmed[1..].find(quote)?;
    let after_title = &trimmed[1 + close + 1..];
    let spaces = after_title.len() - after_title.trim_start().len();
    after_title
        .trim_start()
        .starts_with(')')
        .then_some(skipped + 1 + close + 1 + spaces + 1)
}

/// Where the `[` opens that the `]` at the end of `before` closes (brackets inside may
/// nest).
fn link_open(before: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in before.char_indices().rev() {
        match c {
            ']' => depth += 1,
            '[' if depth == 0 => return Some(i),
            '[' => depth -= 1,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "933cf209b0094d43884c03149f034128";

    fn mark(text: &str) -> String {
        rewrite_item_links(text, |link| {
            Ok::<_, ()>(Some(format!("<{}|{}>", link.text, link.id)))
        })
        .unwrap()
    }

    #[test]
    fn images_and_links_to_items_are_found_with_their_text() {
        assert_eq!(
            mark(&format!(
                "a ![photo.jpg](:/{ID}) b [see [this]](:/{ID} \"t\") c"
            )),
            format!("a <photo.jpg|{ID}> b <see [this]|{ID}> c")
        );
    }

    #[test]
    fn links_that_are_not_to_an_item_stay() {
        let text =
            "[a](:/short) [b](https://x.org) ](:/ [c](:/933cf209b0094d43884c03149f034128 oops";
        assert_eq!(mark(text), text);
    }

    #[test]
    fn a_link_that_replace_declines_stays_as_written() {
        let text = format!("see [other note](:/{ID}).");
        let out = rewrite_item_links(&text, |_| Ok::<_, ()>(None)).unwrap();
        assert_eq!(out, text);
    }

    #[test]
    fn html_attributes_pointing_at_an_item_get_its_address() {
        let text = format!("<img src=\":/{ID}\"> <a href=\":/{}\">", "0".repeat(32));
        let out = rewrite_item_attributes(&text, |id| (id == ID).then(|| "/files/abc".into()));
        assert_eq!(
            out,
            format!("<img src=\"/files/abc\"> <a href=\":/{}\">", "0".repeat(32))
        );
    }
}
