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

/// `text` with each reference replaced by what `replace` makes of it (`None` keeps it as
/// written).
pub(crate) fn rewrite_references<E>(
    text: &str,
    mut replace: impl FnMut(Reference<'_>) -> Result<Option<String>, E>,
) -> Result<String, E> {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
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
        let found = embed(rest).or_else(|| link(rest));
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
    let (address, used) = if let Some(angled) = after.strip_prefix('<') {
        let end = angled.find('>')?;
        (&angled[..end], end + 2)
    } else {
        let end = after
            .find(|c: char| c == ')' || c.is_whitespace())
            .unwrap_or(after.len());
        (&after[..end], end)
    };
    let tail = &after[used..];
    let title_and_close = tail.find(')')?;
    let between = tail[..title_and_close].trim();
    let is_title = between.is_empty()
        || (between.len() >= 2
            && matches!(
                (between.chars().next(), between.chars().last()),
                (Some('"'), Some('"')) | (Some('\''), Some('\''))
            ));
    if !is_title || address.is_empty() {
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

/// Where the `]` is that closes a `[` just before `text` (brackets inside may nest).
fn closing_bracket(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
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
