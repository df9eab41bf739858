//! What "sanitized" means for a note's `html` (PROTOCOL.md v3, Markdown), checked as a
//! browser reads the markup, and a corpus of bodies that try to get past it. Shared by
//! the renderer's unit tests (server/src/text/markdown/tests.rs includes this file) and
//! the API tests, so both hold the rendering to the same standard.

/// Bodies that try to run script, load style, frame, submit or navigate: (what it tries,
/// the body).
pub const CORPUS: &[(&str, &str)] = &[
    ("a script element", "<script>alert(1)</script>"),
    ("a script inside a line", "a <script>alert(1)</script> b"),
    ("an event attribute", "<img src=x onerror=alert(1)>"),
    (
        "an event attribute on a paragraph",
        "<p onclick=\"alert(1)\">x</p>",
    ),
    ("svg with onload", "<svg onload=alert(1)>"),
    (
        "svg holding a style",
        "<svg><style>*{color:red}</style></svg>",
    ),
    (
        "svg xlink:href",
        "<svg><a xlink:href=\"javascript:alert(1)\"><text>x</text></a></svg>",
    ),
    (
        "mXSS through math, mglyph and style",
        "<math><mi><mglyph><style><img src=x onerror=alert(1)></style></mglyph></mi></math>",
    ),
    (
        "mXSS through math, mtext, table and mglyph",
        "<math><mtext><table><mglyph><style><!--</style><img title=\"--&gt;&lt;img src=1 onerror=alert(1)&gt;\">",
    ),
    (
        "mXSS through a noscript title",
        "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">",
    ),
    (
        "iframe srcdoc",
        "<iframe srcdoc=\"<script>alert(1)</script>\"></iframe>",
    ),
    (
        "object data",
        "<object data=\"javascript:alert(1)\"></object>",
    ),
    ("embed", "<embed src=\"javascript:alert(1)\">"),
    ("base href", "<base href=\"https://evil.example/\">"),
    (
        "meta refresh",
        "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\">",
    ),
    (
        "form with formaction",
        "<form action=\"https://evil.example\"><button formaction=\"javascript:alert(1)\">go</button></form>",
    ),
    (
        "a text input",
        "<input type=\"text\" name=\"q\" onfocus=alert(1) autofocus>",
    ),
    (
        "a stylesheet link",
        "<link rel=stylesheet href=https://evil.example/x.css>",
    ),
    ("a style element", "<style>body{display:none}</style>"),
    (
        "a style attribute",
        "<p style=\"background:url(javascript:alert(1))\">x</p>",
    ),
    ("details ontoggle", "<details open ontoggle=alert(1)>"),
    ("an HTML comment", "<!-- <script>alert(1)</script> -->"),
    ("CDATA", "<![CDATA[<script>alert(1)</script>]]>"),
    ("an unclosed anchor", "<a href=\"javascript:alert(1)\">x"),
    ("a javascript: link", "[x](javascript:alert(1))"),
    ("an upper-case JAVASCRIPT: link", "[x](JAVASCRIPT:alert(1))"),
    (
        "a decimal entity in the scheme",
        "[x](&#106;avascript:alert(1))",
    ),
    (
        "a hexadecimal entity in the scheme",
        "[x](&#x6A;avascript:alert(1))",
    ),
    (
        "an encoded tab in the scheme",
        "[x](java&#x09;script:alert(1))",
    ),
    (
        "an encoded line break in the scheme",
        "[x](java&#10;script:alert(1))",
    ),
    ("an encoded colon", "[x](javascript&colon;alert(1))"),
    (
        "a javascript: link in pointy brackets",
        "[x](<javascript:alert(1)>)",
    ),
    (
        "a data:text/html link",
        "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    ),
    ("a vbscript: link", "[x](vbscript:msgbox(1))"),
    (
        "a reference-style link",
        "[x][1]\n\n[1]: javascript:alert(1)",
    ),
    (
        "a collapsed reference link",
        "[evil][]\n\n[evil]: JaVaScRiPt:alert(1)",
    ),
    ("an autolink to javascript:", "<javascript:alert(1)>"),
    ("an autolink to data:", "<data:text/html,alert(1)>"),
    (
        "an image with a javascript: source",
        "![x](javascript:alert(1))",
    ),
    (
        "a tracking pixel",
        "![pixel](https://tracker.example/pixel.gif)",
    ),
    ("a protocol-relative image", "![x](//tracker.example/p.gif)"),
    ("an image out of /files/", "![x](/files/../api/session)"),
    (
        "a data: image",
        "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    ),
    (
        "an image in a javascript: link",
        "[![x](https://t.example/p.gif)](javascript:alert(1))",
    ),
    (
        "quotes in a link title",
        "[x](https://example.com \"a\\\" onmouseover=\\\"alert(1)\")",
    ),
    (
        "quotes in a reference title",
        "[x][a]\n\n[a]: https://example.com 'b\" onmouseover=\"alert(1)'",
    ),
    (
        "quotes in an image's alt and title",
        "![a\" onerror=\"alert(1)](/files/abc \"t\\\" onload=\\\"alert(1)\")",
    ),
    (
        "a language that closes the class",
        "```\"><script>alert(1)</script>\nx\n```",
    ),
    (
        "script in code",
        "`<script>alert(1)</script>`\n\n```html\n<script>alert(1)</script>\n```",
    ),
    ("script in a task", "- [ ] <img src=x onerror=alert(1)>"),
    (
        "script in a table",
        "| a | b |\n|---|---|\n| <script>x</script> | <img src=x onerror=alert(1)> |",
    ),
    (
        "a tag followed by an attribute",
        "#tag\"onmouseover=alert(1) #x'y",
    ),
    (
        "a bare URL followed by markup",
        "https://example.com/\"><script>alert(1)</script> www.example.com/<svg>",
    ),
    (
        "entities spelling a script",
        "&lt;script&gt;alert(1)&lt;/script&gt;",
    ),
];

/// Elements that run script, load style, frame, submit or navigate by themselves.
const FORBIDDEN_ELEMENTS: &[&str] = &[
    "script", "style", "iframe", "frame", "frameset", "object", "embed", "form", "button",
    "textarea", "select", "base", "meta", "link", "svg", "math", "noscript", "template",
];

/// Attributes that do as much (besides every `on…`).
const FORBIDDEN_ATTRIBUTES: &[&str] = &[
    "style",
    "srcdoc",
    "formaction",
    "action",
    "target",
    "xlink:href",
    "http-equiv",
];

/// Panics, naming `case`, unless `html` is safe as PROTOCOL.md v3 says.
pub fn assert_safe(case: &str, html: &str) {
    let lower = html.to_ascii_lowercase();
    for raw in [
        "<script", "<style", "<iframe", "<object", "<embed", "<base", "<meta", "<form", "<svg",
        "<math", "<link", "<!--", "<![cdata",
    ] {
        assert!(!lower.contains(raw), "{case}: {raw} in {html}");
    }
    for element in elements(html) {
        let name = element.name.to_ascii_lowercase();
        assert!(
            !FORBIDDEN_ELEMENTS.contains(&name.as_str()),
            "{case}: <{name}> in {html}"
        );
        for (attribute, value) in &element.attributes {
            let attribute = attribute.to_ascii_lowercase();
            assert!(
                !attribute.starts_with("on") && !FORBIDDEN_ATTRIBUTES.contains(&attribute.as_str()),
                "{case}: {attribute}= on <{name}> in {html}"
            );
            let url = matches!(
                attribute.as_str(),
                "href" | "src" | "data" | "poster" | "cite"
            );
            if url {
                assert_safe_url(case, &name, &attribute, value, html);
            }
        }
        if name == "input" {
            assert_eq!(
                element.attribute("type"),
                Some("checkbox"),
                "{case}: an input other than a checkbox in {html}"
            );
        }
    }
}

fn assert_safe_url(case: &str, element: &str, attribute: &str, value: &str, html: &str) {
    // As a browser reads it: entities decoded, then every tab, line break and control
    // character or space dropped (leading ones are trimmed, inner tabs and breaks removed).
    let url: String = decode_entities(value)
        .chars()
        .filter(|c| !c.is_ascii_whitespace() && !c.is_control())
        .collect::<String>()
        .to_ascii_lowercase();
    for scheme in ["javascript:", "data:", "vbscript:"] {
        assert!(
            !url.starts_with(scheme),
            "{case}: {scheme} in <{element} {attribute}> in {html}"
        );
    }
    if let Some(scheme) = scheme_of(&url) {
        assert!(
            matches!(scheme, "http" | "https" | "mailto"),
            "{case}: scheme {scheme}: in <{element} {attribute}> in {html}"
        );
    }
    if element == "img" {
        assert!(
            url.starts_with("/files/") && !url.contains(".."),
            "{case}: an image not from the person's files ({url}) in {html}"
        );
    }
}

/// The scheme of a URL, if it has one (`javascript` of `javascript:x`; none for a path).
fn scheme_of(url: &str) -> Option<&str> {
    let colon = url.find(':')?;
    let scheme = &url[..colon];
    let is_scheme = !scheme.is_empty()
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    is_scheme.then_some(scheme)
}

/// `&#106;`, `&#x6A;`, `&amp;`, `&colon;`… decoded (and numeric ones without their `;`).
fn decode_entities(value: &str) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at + 1..];
        let end = rest
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '#')
            .unwrap_or(rest.len());
        let entity = &rest[..end];
        let decoded = if let Some(hex) = entity
            .strip_prefix("#x")
            .or_else(|| entity.strip_prefix("#X"))
        {
            u32::from_str_radix(hex, 16).ok().and_then(char::from_u32)
        } else if let Some(decimal) = entity.strip_prefix('#') {
            decimal.parse().ok().and_then(char::from_u32)
        } else {
            match entity.to_ascii_lowercase().as_str() {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "colon" => Some(':'),
                "tab" => Some('\t'),
                "newline" => Some('\n'),
                "nbsp" => Some('\u{a0}'),
                _ => None,
            }
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[end..];
                rest = rest.strip_prefix(';').unwrap_or(rest);
            }
            None => out.push('&'),
        }
    }
    out.push_str(rest);
    out
}

/// An element's start tag as written.
pub struct Element {
    pub name: String,
    pub attributes: Vec<(String, String)>,
}

impl Element {
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The start tags of serialized HTML, in order. Text never holds a raw `<` there (it is
/// written `&lt;`), so every `<` opens a tag; attribute values may hold `>`.
pub fn elements(html: &str) -> Vec<Element> {
    let bytes = html.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while let Some(open) = html[i..].find('<') {
        i += open + 1;
        if bytes.get(i) == Some(&b'/') {
            continue;
        }
        let name_end = html[i..]
            .find(|c: char| c.is_ascii_whitespace() || c == '>' || c == '/')
            .map_or(html.len(), |n| i + n);
        let mut element = Element {
            name: html[i..name_end].to_owned(),
            attributes: Vec::new(),
        };
        i = name_end;
        loop {
            while bytes
                .get(i)
                .is_some_and(|b| b.is_ascii_whitespace() || *b == b'/')
            {
                i += 1;
            }
            if i >= bytes.len() || bytes[i] == b'>' {
                break;
            }
            let attr_end = html[i..]
                .find(|c: char| c.is_ascii_whitespace() || c == '=' || c == '>')
                .map_or(html.len(), |n| i + n);
            let attribute = html[i..attr_end].to_owned();
            i = attr_end;
            let mut value = String::new();
            if bytes.get(i) == Some(&b'=') {
                i += 1;
                let quote = bytes.get(i).copied();
                if matches!(quote, Some(b'"' | b'\'')) {
                    let q = char::from(quote.unwrap_or(b'"'));
                    let close = html[i + 1..].find(q).map_or(html.len(), |n| i + 1 + n);
                    value = html[i + 1..close].to_owned();
                    i = (close + 1).min(html.len());
                } else {
                    let close = html[i..]
                        .find(|c: char| c.is_ascii_whitespace() || c == '>')
                        .map_or(html.len(), |n| i + n);
                    value = html[i..close].to_owned();
                    i = close;
                }
            }
            element.attributes.push((attribute, value));
        }
        found.push(element);
    }
    found
}
