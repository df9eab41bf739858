//! Finding what a Markdown note points at: Obsidian's embeds (`![[white.png]]`,
//! `![[Other note#Heading|shown]]`) and Markdown images and links (`![alt](white.png)`,
//! `[text](docs/a%20b.pdf)`). Syntax that does not close (`![[Partial embed`) is not a
//! reference and stays as it is.

/// One reference, as the note wrote it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Reference<'a> {
    /// `![[inner]]`: `target` is `inner` up to its `|`.
    Embed { inner: &'a str, target: &'a str },
    /// `![text](address)` (an image) or `[text](address)`.
    Link {
        is_image: bool,
        text: &'a str,
        address: &'a str,
    },
}

/// How far past its opening bracket a reference may reach (CommonMark-ish parsers give
/// up after a fixed stretch too): without it, every `[` of a line of them would be
/// matched against the rest of the line, which takes hours for a few megabytes.
const WINDOW: usize = 1000;

/// How deeply brackets may nest inside a link's text before it is not taken for one:
/// keeps the search for a closing bracket short when the brackets never close.
const MAX_NESTING: usize = 32;

/// `text` with each reference replaced by what `replace` makes of it (`None` keeps it as
/// written).
pub(crate) fn rewrite_references<E>(
    text: &str,
    mut replace: impl FnMut(Reference<'_>) -> Result<Option<String>, E>,
) -> Result<String, E> {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    // Where the line `at` is on ends: found once per line, not once per bracket.
    let mut line_end = 0;
    while at < text.len() {
        let rest = &text[at..];
        let next = rest
            .char_indices()
            .find(|&(_, c)| c == '!' || c == '[')
            .map(|(i, _)| i);
        let Some(skip) = next else {
            out.push_str(rest);
            break;
        };
        out.push_str(&rest[..skip]);
        at += skip;
        let rest = &text[at..];
        if at >= line_end {
            line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        }
        let mut window_end = line_end.min(at + WINDOW);
        while !text.is_char_boundary(window_end) {
            window_end -= 1;
        }
        let candidate = &text[at..window_end];
        let found = embed(candidate).or_else(|| link(candidate));
        match found {
            Some((reference, length)) => {
                let opener = match reference {
                    Reference::Embed { .. } => 3,
                    Reference::Link { is_image: true, .. } => 2,
                    Reference::Link { .. } => 1,
                };
                match replace(reference)? {
                    Some(replacement) => {
                        out.push_str(&replacement);
                        at += length;
                    }
                    // Declined: what is inside may still hold a reference
                    // (`[![img](a.png)](https://…)`).
                    None => {
                        out.push_str(&rest[..opener]);
                        at += opener;
                    }
                }
            }
            None => {
                out.push_str(&rest[..1]);
                at += 1;
            }
        }
    }
    Ok(out)
}

/// `![[inner]]` at the start of `text`, on one line, with no bracket inside; and its
/// length.
fn embed(text: &str) -> Option<(Reference<'_>, usize)> {
    let after = text.strip_prefix("![[")?;
    let line = after.split('\n').next().unwrap_or("");
    let close = line.find("]]")?;
    let inner = &line[..close];
    if inner.trim().is_empty() || inner.contains(['[', ']']) {
        return None;
    }
    let target = inner.split('|').next().unwrap_or(inner);
    Some((Reference::Embed { inner, target }, 3 + close + 2))
}

/// `![text](address)` or `[text](address "title")` at the start of `text`, on one line;
/// and its length.
fn link(text: &str) -> Option<(Reference<'_>, usize)> {
    let is_image = text.starts_with("![");
    let open = if is_image { 1 } else { 0 };
    if !text[open..].starts_with('[') {
        return None;
    }
    let line_end = text.find('\n').unwrap_or(text.len());
    let line = &text[..line_end];
    let close = closing_bracket(&line[open + 1..])? + open + 1;
    let after = line[close + 1..].strip_prefix('(')?;
    // Each part stops at the first character it cannot hold (a `<` in an angled
    // address, a `[` in a bare one: no vault file's name has one), so a line of broken
    // links is read once, not once per bracket.
    let (address, used) = if let Some(angled) = after.strip_prefix('<') {
        let end = angled.find(['>', '<'])?;
        if angled[end..].starts_with('<') {
            return None;
        }
        (&angled[..end], end + 2)
    } else {
        let end = after
            .find(|c: char| c == ')' || c == '[' || c.is_whitespace())
            .unwrap_or(after.len());
        (&after[..end], end)
    };
    let tail = &after[used..];
    let title_and_close = title_end(tail)?;
    if address.is_empty() {
        return None;
    }
    let length = close + 2 + used + title_and_close + 1;
    let reference = Reference::Link {
        is_image,
        text: &text[open + 1..close],
        address,
    };
    Some((reference, length))
}

/// Where the `)` is that ends a link after its address: after spaces, either at once or
/// after a title in matching quotes.
fn title_end(tail: &str) -> Option<usize> {
    let title = tail.trim_start();
    let skipped = tail.len() - title.len();
    let after_title = match title.chars().next()? {
        ')' => return Some(skipped),
        quote @ ('"' | '\'') => {
            let inside = &title[1..];
            1 + inside.find(quote)? + 1
        }
        _ => return None,
    };
    let rest = &title[after_title..];
    let close = rest.trim_start();
    close
        .starts_with(')')
        .then(|| skipped + after_title + (rest.len() - close.len()))
}

/// Where the `]` is that closes a `[` just before `text` (brackets inside may nest).
fn closing_bracket(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '[' if depth == MAX_NESTING => return None,
            '[' => depth += 1,
            ']' if depth == 0 => return Some(i),
            ']' => depth -= 1,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(text: &str) -> Vec<String> {
        let mut found = Vec::new();
        rewrite_references(text, |r| {
            found.push(format!("{r:?}"));
            Ok::<_, ()>(None)
        })
        .unwrap();
        found
    }

    fn marked(text: &str) -> String {
        rewrite_references(text, |r| {
            Ok::<_, ()>(Some(match r {
                Reference::Embed { target, .. } => format!("<E:{target}>"),
                Reference::Link {
                    is_image, address, ..
                } => format!("<L:{is_image}:{address}>"),
            }))
        })
        .unwrap()
    }

    #[test]
    fn embeds_images_and_links_are_found_and_replaced() {
        assert_eq!(
            marked(
                "a ![[white.png]] b ![[Note#Head|shown]] c ![alt](white.png) d [t](a%20b.pdf \"T\") e"
            ),
            "a <E:white.png> b <E:Note#Head> c <L:true:white.png> d <L:false:a%20b.pdf> e"
        );
        assert_eq!(marked("![x](<my file.png>)"), "<L:true:my file.png>");
    }

    #[test]
    fn broken_syntax_and_plain_wikilinks_are_not_references() {
        let text =
            "![[Not a valid embed.]\n\n![[Partial embed\n\n[[Link]] [^fn1] [x] (y) ![] ![[]]";
        assert!(listed(text).is_empty(), "{:?}", listed(text));
        assert_eq!(marked(text), text);
    }

    /// Runs `rewrite_references` over `text` on its own thread; false if it takes
    /// longer than `seconds` (the thread is left behind: the test has failed).
    fn finishes_within(text: String, seconds: u64) -> bool {
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let out = rewrite_references(&text, |_| Ok::<_, ()>(Some(String::new())));
            let _ = done.send(out.map(|o| o.len()));
        });
        finished
            .recv_timeout(std::time::Duration::from_secs(seconds))
            .is_ok()
    }

    #[test]
    fn a_line_of_unclosed_brackets_is_scanned_in_linear_time() {
        assert!(finishes_within("[".repeat(4_000_000), 20));
        assert!(finishes_within("[a](".repeat(1_000_000), 20));
        assert!(finishes_within("![[".repeat(1_000_000), 20));
        assert!(finishes_within("[a](<".repeat(1_000_000), 20));
        assert!(finishes_within("[a](b ".repeat(1_000_000), 20));
    }

    #[test]
    fn references_are_found_beyond_a_long_line_and_nest_a_little() {
        let text = format!(
            "{} [a](b.png) [[x]](c.png) [t](d.png \"T\" ) [u]( e.png 'U')",
            "[".repeat(10_000)
        );
        assert!(
            marked(&text)
                .ends_with(" <L:false:b.png> <L:false:c.png> <L:false:d.png> [u]( e.png 'U')")
        );
    }

    #[test]
    fn a_declined_link_is_looked_into() {
        let text = "[![img](a.png)](https://example.org)";
        let out = rewrite_references(text, |r| {
            Ok::<_, ()>(match r {
                Reference::Link { is_image: true, .. } => Some("IMG".into()),
                _ => None,
            })
        })
        .unwrap();
        assert_eq!(out, "[IMG](https://example.org)");
    }
}
