//! Addresses of pages: cursors, queries and tag names percent-encoded for links, the
//! search page and the page of a tag.

/// Percent-encodes a cursor or a query for a link.
pub fn urlencode(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// The search page's path.
pub const SEARCH_PAGE: &str = "/search";

/// The search page's address for the query `q`.
pub fn search_href(q: &str) -> String {
    format!("{SEARCH_PAGE}?q={}", urlencode(q))
}

/// The page of a tag: `/tags/` and the name's levels, each percent-encoded, joined by `/`
/// — so a nested tag's page is `/tags/a/b`, the address the rendered Markdown links to
/// (`/tags/{name}` with the name as it is, which the browser encodes the same way).
pub fn tag_href(name: &str) -> String {
    let levels: Vec<String> = name.split('/').map(urlencode).collect();
    format!("/tags/{}", levels.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_carry_cursors_and_queries_percent_encoded() {
        assert_eq!(
            urlencode("2026-11-30T05:00:00.123456Z_abc"),
            "2026-11-30T05%3A00%3A00.123456Z_abc"
        );
        assert_eq!(urlencode("café \"x\""), "caf%C3%A9%20%22x%22");
    }

    #[test]
    fn a_tags_page_keeps_its_levels_apart_and_encodes_each() {
        assert_eq!(tag_href("work"), "/tags/work");
        assert_eq!(tag_href("projekt/übung"), "/tags/projekt/%C3%BCbung");
        assert_eq!(tag_href("to-do_2026"), "/tags/to-do_2026");
    }
}
