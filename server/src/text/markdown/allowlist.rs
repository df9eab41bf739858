//! The second wall: the rendered HTML parsed as a browser would (ammonia, html5ever) and
//! kept only as far as listed here. Everything not listed goes — `script`, `style`,
//! `iframe`, `object`, `embed`, `form`, `base`, `meta`, `link`, `svg`, `math`, every `on…`,
//! `style`, `srcdoc` or `formaction` attribute, and any URL scheme but http, https and
//! mailto (relative addresses pass: they stay on this site).

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use ammonia::{Builder, UrlRelative};

/// The elements Markdown is written as, and the task box.
const ELEMENTS: &[&str] = &[
    "a",
    "blockquote",
    "br",
    "code",
    "del",
    "em",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "img",
    "input",
    "li",
    "ol",
    "p",
    "pre",
    "strong",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "ul",
];

/// The attributes each element may keep (before [`keeps`] looks at their values). No
/// `style`, so a table's column alignment is dropped.
const ATTRIBUTES: &[(&str, &[&str])] = &[
    ("a", &["href", "title"]),
    ("img", &["src", "alt", "title", "loading"]),
    ("input", &["type", "checked", "disabled", "data-line"]),
    ("code", &["class"]),
    ("ol", &["start"]),
];

/// Classes the renderer gives: a tag's link, a task's item.
const CLASSES: &[(&str, &[&str])] = &[("a", &["tag"]), ("li", &["task"])];

/// The one sanitizer, built once (its allowlist never changes while the server runs).
pub fn cleaner() -> &'static Builder<'static> {
    static CLEANER: LazyLock<Builder<'static>> = LazyLock::new(build);
    &CLEANER
}

fn build() -> Builder<'static> {
    let mut builder = Builder::empty();
    builder
        .tags(ELEMENTS.iter().copied().collect())
        .generic_attributes(HashSet::new())
        .tag_attributes(
            ATTRIBUTES
                .iter()
                .map(|(element, names)| (*element, names.iter().copied().collect()))
                .collect(),
        )
        .allowed_classes(
            CLASSES
                .iter()
                .map(|(element, names)| (*element, names.iter().copied().collect()))
                .collect(),
        )
        // One attribute set per element, so the order it is added in never varies.
        .set_tag_attribute_values(HashMap::from([
            ("img", HashMap::from([("loading", "lazy")])),
            ("input", HashMap::from([("type", "checkbox")])),
        ]))
        .url_schemes(HashSet::from(["http", "https", "mailto"]))
        .url_relative(UrlRelative::PassThrough)
        .link_rel(Some("noopener noreferrer nofollow"))
        .strip_comments(true)
        .attribute_filter(|element, attribute, value| {
            keeps(element, attribute, value).then(|| value.into())
        });
    builder
}

/// Whether an allowed attribute keeps this value.
fn keeps(element: &str, attribute: &str, value: &str) -> bool {
    match (element, attribute) {
        ("img", "src") => is_own_file(value),
        ("img", "loading") => value == "lazy",
        ("input", "type") => value == "checkbox",
        ("input", "data-line") | ("ol", "start") => {
            !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit())
        }
        ("code", "class") => is_language_class(value),
        _ => true,
    }
}

/// One of the person's own files: `/files/` and one plain name (the file's hash), a path
/// on this site that no `..`, `\`, query or scheme can lead elsewhere. An image from
/// anywhere else would be a request the page makes by itself (a tracking pixel).
pub fn is_own_file(src: &str) -> bool {
    src.strip_prefix("/files/").is_some_and(|name| {
        !name.is_empty()
            && name != "."
            && name != ".."
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
    })
}

/// `language-rust`: the class pulldown-cmark gives a fenced code block's language.
fn is_language_class(value: &str) -> bool {
    value.strip_prefix("language-").is_some_and(|language| {
        !language.is_empty()
            && language
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'+' | b'.' | b'#'))
    })
}
