//! The one HTML escaper of hand-written HTML (the server's "not saved" page, the search
//! snippets, online and offline). Leptos escapes what its views render; this is for text put into
//! HTML by `format!`.

/// Text made safe to put in HTML, as element content or a quoted attribute (either quote).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(&mut out, text.chars());
    out
}

/// Appends `text` to `out` as [`escape`] writes it: `&`, `<`, `>`, `"` and `'` as
/// entities, everything else as it is. `<` and `&` are enough for element content; the
/// quotes keep a value inside its attribute, `>` keeps old parsers from closing a tag.
pub fn escape_into(out: &mut String, text: impl IntoIterator<Item = char>) {
    for c in text {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_text_cannot_open_a_tag_or_leave_an_attribute() {
        assert_eq!(
            escape(r#"<script>"x" & 'y'</script>"#),
            "&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;"
        );
    }

    #[test]
    fn an_entity_in_the_text_is_shown_as_typed_not_read() {
        assert_eq!(escape("&lt;b&gt; &#39;"), "&amp;lt;b&amp;gt; &amp;#39;");
    }

    #[test]
    fn other_text_is_left_as_it_is() {
        assert_eq!(
            escape("Crème brûlée — 東京 ✓\n\t"),
            "Crème brûlée — 東京 ✓\n\t"
        );
        assert_eq!(escape(""), "");
    }

    #[test]
    fn escaping_into_appends_to_what_is_there() {
        let mut out = String::from("<mark>");
        escape_into(&mut out, ['<', 'b', '>']);
        assert_eq!(out, "<mark>&lt;b&gt;");
    }
}
