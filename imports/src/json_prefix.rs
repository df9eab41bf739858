//! The keys at the top of a JSON object, read from its first bytes only (the rest may be
//! megabytes away, or cut off): enough to tell one export's JSON from another's.

/// The keys of the outermost object found in `text`, in order, each with its value when
/// that value is a string (`None` for a number, an object, a list…). Stops at the end of
/// `text` or of the object; a `text` that does not start (after whitespace) with `{`
/// has none.
pub(crate) fn top_level_keys(text: &[u8]) -> Vec<(String, Option<String>)> {
    let mut keys = Vec::new();
    let start = text.iter().position(|b| !b.is_ascii_whitespace());
    let Some(start) = start.filter(|&i| text[i] == b'{') else {
        return keys;
    };
    let mut depth = 1usize;
    let mut expect_key = true;
    let mut pending: Option<String> = None;
    let mut i = start + 1;
    while i < text.len() {
        match text[i] {
            b'"' => {
                let Some((string, next)) = read_string(text, i) else {
                    break;
                };
                if depth == 1 {
                    if expect_key {
                        pending = Some(string);
                        expect_key = false;
                    } else if let Some(key) = pending.take() {
                        keys.push((key, Some(string)));
                    }
                }
                i = next;
                continue;
            }
            b'{' | b'[' => {
                if depth == 1
                    && let Some(key) = pending.take()
                {
                    keys.push((key, None));
                }
                depth += 1;
            }
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    if let Some(key) = pending.take() {
                        keys.push((key, None));
                    }
                    break;
                }
            }
            b',' if depth == 1 => {
                if let Some(key) = pending.take() {
                    keys.push((key, None));
                }
                expect_key = true;
            }
            _ => {}
        }
        i += 1;
    }
    keys
}

/// The string that opens at `text[open]` (a `"`), with `\"` and `\\` undone, and where
/// the text after it starts; `None` when it is cut off.
fn read_string(text: &[u8], open: usize) -> Option<(String, usize)> {
    let mut out = Vec::new();
    let mut i = open + 1;
    while i < text.len() {
        match text[i] {
            b'"' => return Some((String::from_utf8_lossy(&out).into_owned(), i + 1)),
            b'\\' => {
                let escaped = *text.get(i + 1)?;
                out.push(escaped);
                i += 2;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_come_with_their_string_values_and_nested_ones_are_not_keys() {
        let keys = top_level_keys(
            br#" {"version":"004","n":3,"inner":{"items":1},"items":[{"a":"b"}],"t":"x\"y"}"#,
        );
        let expected: Vec<(String, Option<String>)> = vec![
            ("version".into(), Some("004".into())),
            ("n".into(), None),
            ("inner".into(), None),
            ("items".into(), None),
            ("t".into(), Some("x\"y".into())),
        ];
        assert_eq!(keys, expected);
    }

    #[test]
    fn a_cut_off_object_gives_the_keys_before_the_cut() {
        let keys = top_level_keys(br#"{"format": "oncenote-export", "version": 2, "notes": [{"ti"#);
        assert_eq!(keys[0], ("format".into(), Some("oncenote-export".into())));
        assert_eq!(keys[1], ("version".into(), None));
        assert_eq!(keys[2], ("notes".into(), None));
    }

    #[test]
    fn text_that_is_not_an_object_has_no_keys() {
        assert!(top_level_keys(b"[1,2]").is_empty());
        assert!(top_level_keys(b"").is_empty());
        assert!(top_level_keys(b"hello").is_empty());
    }
}
