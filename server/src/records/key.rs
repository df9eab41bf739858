//! The `Idempotency-Key` header, parsed once into a type that can only hold a valid key.

use axum::http::HeaderMap;

const MAX_LEN: usize = 255;

/// Why a request's idempotency key cannot be used (400, told to the client as
/// `missing-idempotency-key` or `invalid-idempotency-key`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("the Idempotency-Key header is missing")]
    Missing,
    #[error("{0}")]
    Invalid(String),
}

/// A valid idempotency key: 1–255 visible ASCII characters (0x21–0x7E).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    /// Reads the key from the request headers: exactly one `Idempotency-Key` header.
    pub fn from_headers(headers: &HeaderMap) -> Result<Self, KeyError> {
        let mut values = headers.get_all(app::api::IDEMPOTENCY_KEY_HEADER).iter();
        let value = values.next().ok_or(KeyError::Missing)?;
        if values.next().is_some() {
            return Err(invalid("send exactly one Idempotency-Key header"));
        }
        let text = value
            .to_str()
            .map_err(|_| invalid("the Idempotency-Key must be ASCII"))?;
        Self::parse(text)
    }

    /// Parses a header value: a bare token, or an RFC 9651 sf-string (`"abc"` is the same
    /// key as `abc`). Surrounding spaces and tabs are not part of the key.
    pub fn parse(value: &str) -> Result<Self, KeyError> {
        let value = value.trim_matches([' ', '\t']);
        let key = if value.starts_with('"') {
            unquote_sf_string(value)?
        } else {
            value.to_owned()
        };
        if key.is_empty() {
            return Err(invalid("the Idempotency-Key is empty"));
        }
        if key.len() > MAX_LEN {
            return Err(invalid(&format!(
                "the Idempotency-Key has {} characters; at most {MAX_LEN} are allowed",
                key.len()
            )));
        }
        if let Some(bad) = key.bytes().find(|b| !(0x21..=0x7e).contains(b)) {
            return Err(invalid(&format!(
                "the Idempotency-Key may hold only visible ASCII characters; found byte 0x{bad:02x}"
            )));
        }
        Ok(Self(key))
    }

    /// A key as the database holds it (already parsed when it was first sent: a stored
    /// `"abc"` is the key `"abc"`, not `abc`).
    pub fn from_stored(key: String) -> Self {
        Self(key)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for IdempotencyKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// RFC 9651 §4.2.5: a string is `"`, then printable ASCII with `\"` and `\\` as the only
/// escapes, then `"`, with nothing after it.
fn unquote_sf_string(value: &str) -> Result<String, KeyError> {
    let mut chars = value[1..].chars();
    let mut out = String::new();
    loop {
        match chars.next() {
            None => return Err(invalid("the quoted Idempotency-Key has no closing quote")),
            Some('"') => break,
            Some('\\') => match chars.next() {
                Some(c @ ('"' | '\\')) => out.push(c),
                _ => {
                    return Err(invalid(
                        "only \\\" and \\\\ may be escaped in a quoted Idempotency-Key",
                    ));
                }
            },
            Some(c) if (' '..='~').contains(&c) => out.push(c),
            Some(_) => {
                return Err(invalid(
                    "the quoted Idempotency-Key holds a character that is not printable ASCII",
                ));
            }
        }
    }
    if chars.next().is_some() {
        return Err(invalid(
            "nothing may follow the closing quote of the Idempotency-Key",
        ));
    }
    Ok(out)
}

fn invalid(reason: &str) -> KeyError {
    KeyError::Invalid(reason.to_owned())
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn parse(value: &str) -> Result<String, String> {
        IdempotencyKey::parse(value)
            .map(|k| k.0)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_uuid_is_a_valid_bare_key() {
        let uuid = "0b7a3c52-6f0e-4c51-9a0e-4a0c8f7e2d11";
        assert_eq!(parse(uuid).unwrap(), uuid);
    }

    #[test]
    fn a_quoted_key_is_the_same_key_as_the_bare_one() {
        assert_eq!(parse("\"abc\"").unwrap(), parse("abc").unwrap());
    }

    #[test]
    fn quoted_keys_unescape_quotes_and_backslashes() {
        assert_eq!(parse(r#""a\"b\\c""#).unwrap(), r#"a"b\c"#);
    }

    #[test]
    fn quoted_keys_reject_other_escapes_missing_quotes_and_trailing_text() {
        assert!(parse(r#""a\nb""#).is_err());
        assert!(parse("\"abc").is_err());
        assert!(parse("\"abc\"x").is_err());
    }

    #[test]
    fn a_quoted_key_with_a_space_inside_is_not_visible_ascii() {
        assert!(parse("\"a b\"").is_err());
    }

    #[test]
    fn empty_keys_are_rejected_bare_or_quoted() {
        assert!(parse("").is_err());
        assert!(parse("   ").is_err());
        assert!(parse("\"\"").is_err());
    }

    #[test]
    fn keys_may_have_255_characters_but_not_256() {
        assert!(parse(&"k".repeat(255)).is_ok());
        assert!(parse(&"k".repeat(256)).is_err());
        assert!(parse(&format!("\"{}\"", "k".repeat(255))).is_ok());
    }

    #[test]
    fn surrounding_whitespace_is_not_part_of_the_key() {
        assert_eq!(parse("  abc\t").unwrap(), "abc");
    }

    #[test]
    fn control_characters_and_spaces_inside_a_bare_key_are_rejected() {
        assert!(parse("a b").is_err());
        assert!(parse("a\u{7f}b").is_err());
        assert!(parse("a\u{1}b").is_err());
        assert!(parse("ключ").is_err());
    }

    #[test]
    fn a_request_needs_exactly_one_key_header() {
        let mut headers = HeaderMap::new();
        assert!(matches!(
            IdempotencyKey::from_headers(&headers),
            Err(KeyError::Missing)
        ));
        headers.append("idempotency-key", HeaderValue::from_static("a"));
        assert!(IdempotencyKey::from_headers(&headers).is_ok());
        headers.append("idempotency-key", HeaderValue::from_static("b"));
        assert!(matches!(
            IdempotencyKey::from_headers(&headers),
            Err(KeyError::Invalid(_))
        ));
    }

    #[test]
    fn a_header_with_non_ascii_bytes_is_an_invalid_key() {
        let mut headers = HeaderMap::new();
        headers.insert(
            "idempotency-key",
            HeaderValue::from_bytes(b"caf\xc3\xa9").unwrap(),
        );
        assert!(matches!(
            IdempotencyKey::from_headers(&headers),
            Err(KeyError::Invalid(_))
        ));
    }
}

#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn any_header_text_either_fails_cleanly_or_yields_visible_ascii(value in any::<String>()) {
            if let Ok(key) = IdempotencyKey::parse(&value) {
                prop_assert!((1..=255).contains(&key.as_str().len()));
                prop_assert!(key.as_str().bytes().all(|b| (0x21..=0x7e).contains(&b)));
            }
        }

        #[test]
        fn every_visible_ascii_key_reads_back_the_same_bare_or_quoted(key in "[!-~]{1,255}") {
            let quoted = format!("\"{}\"", key.replace('\\', "\\\\").replace('"', "\\\""));
            let from_quoted = IdempotencyKey::parse(&quoted).unwrap();
            prop_assert_eq!(from_quoted.as_str(), key.as_str());
            if !key.starts_with('"') {
                let bare = IdempotencyKey::parse(&key).unwrap();
                prop_assert_eq!(bare.as_str(), key.as_str());
            }
        }
    }
}
