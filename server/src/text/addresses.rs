//! Addresses in text, as linkify finds them: URLs with a scheme (`https://…`, `ftp://…`),
//! `www.` addresses and e-mail addresses. A `#` inside one is part of it, not a tag
//! (`tags`); the Markdown renderer links those a browser may follow from a note.

use std::ops::Range;

use linkify::{LinkFinder, LinkKind};

/// One address in a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Address {
    /// Where it stands in the text, in bytes.
    pub range: Range<usize>,
    /// What a link to it points to, if a note may link it: `http(s)://…` as written,
    /// `www.…` as `https://www.…`, an e-mail address as `mailto:…`; `None` for any other
    /// scheme.
    pub href: Option<String>,
}

/// Every address in `text`, in order.
pub fn in_text(text: &str) -> Vec<Address> {
    if !text.contains([':', '@', '.']) {
        return Vec::new();
    }
    let mut finder = LinkFinder::new();
    finder.url_must_have_scheme(false);
    finder
        .links(text)
        .filter_map(|link| {
            let written = link.as_str();
            let href = match link.kind() {
                LinkKind::Email => Some(format!("mailto:{written}")),
                LinkKind::Url if starts_with_ignoring_case(written, "http://") => {
                    Some(written.to_owned())
                }
                LinkKind::Url if starts_with_ignoring_case(written, "https://") => {
                    Some(written.to_owned())
                }
                LinkKind::Url if starts_with_ignoring_case(written, "www.") => {
                    Some(format!("https://{written}"))
                }
                // Another scheme: an address, not one to link.
                LinkKind::Url if written.contains("://") => None,
                // A bare domain (`example.com/x`): plain text, as people write file names.
                _ => return None,
            };
            Some(Address {
                range: link.start()..link.end(),
                href,
            })
        })
        .collect()
}

fn starts_with_ignoring_case(text: &str, prefix: &str) -> bool {
    text.get(..prefix.len())
        .is_some_and(|start| start.eq_ignore_ascii_case(prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hrefs(text: &str) -> Vec<(&str, Option<String>)> {
        in_text(text)
            .into_iter()
            .map(|a| (&text[a.range], a.href))
            .collect()
    }

    #[test]
    fn web_addresses_and_emails_are_found_with_the_link_they_make() {
        assert_eq!(
            hrefs("HTTPS://E.example/a, www.f.example. me@g.example"),
            [
                (
                    "HTTPS://E.example/a",
                    Some("HTTPS://E.example/a".to_owned())
                ),
                ("www.f.example", Some("https://www.f.example".to_owned())),
                ("me@g.example", Some("mailto:me@g.example".to_owned())),
            ]
        );
    }

    #[test]
    fn other_schemes_are_addresses_without_a_link_and_bare_domains_are_text() {
        assert_eq!(
            hrefs("ftp://h.example/x notes.md example.com/page javascript:alert(1)"),
            [("ftp://h.example/x", None)]
        );
    }
}
