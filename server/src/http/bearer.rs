//! `Authorization: Bearer <token>` (RFC 6750), read by the sign-in of the request (a
//! bearer replaces the cookie; the cross-site check then skips what a token signed in).

use axum::http::{HeaderMap, header};

/// What a request's `Authorization` header brings.
#[derive(Debug, PartialEq, Eq)]
pub enum Bearer<'a> {
    /// No bearer: no `Authorization` header, or one of another scheme (`Basic`, …).
    Absent,
    /// One `Bearer` header with a token in it.
    Token(&'a str),
    /// A bearer the server cannot read: empty, not text, or more than one `Authorization`
    /// header. It is refused, never taken for no bearer at all.
    Malformed,
}

/// The bearer token a request brings, if any.
pub fn bearer(headers: &HeaderMap) -> Bearer<'_> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let Some(first) = values.next() else {
        return Bearer::Absent;
    };
    let is_bearer = |bytes: &[u8]| bytes.len() >= 6 && bytes[..6].eq_ignore_ascii_case(b"bearer");
    let more = values.next();
    if more.is_some() {
        let any_bearer =
            is_bearer(first.as_bytes()) || more.is_some_and(|v| is_bearer(v.as_bytes()));
        return if any_bearer || values.any(|v| is_bearer(v.as_bytes())) {
            Bearer::Malformed
        } else {
            Bearer::Absent
        };
    }
    if !is_bearer(first.as_bytes()) {
        return Bearer::Absent;
    }
    let Ok(text) = first.to_str() else {
        return Bearer::Malformed;
    };
    match text[6..].strip_prefix(' ').map(str::trim) {
        Some(token) if !token.is_empty() && !token.contains(char::is_whitespace) => {
            Bearer::Token(token)
        }
        _ => Bearer::Malformed,
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn headers(values: &[&[u8]]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(
                header::AUTHORIZATION,
                HeaderValue::from_bytes(value).unwrap(),
            );
        }
        headers
    }

    #[test]
    fn a_bearer_token_is_read_whatever_the_schemes_case() {
        assert_eq!(bearer(&headers(&[b"Bearer abc"])), Bearer::Token("abc"));
        assert_eq!(bearer(&headers(&[b"bearer  abc "])), Bearer::Token("abc"));
        assert_eq!(bearer(&headers(&[b"BEARER abc"])), Bearer::Token("abc"));
    }

    #[test]
    fn no_header_or_another_scheme_is_no_bearer() {
        assert_eq!(bearer(&headers(&[])), Bearer::Absent);
        assert_eq!(bearer(&headers(&[b"Basic YTpi"])), Bearer::Absent);
        assert_eq!(
            bearer(&headers(&[b"Basic YTpi", b"Basic Yzpk"])),
            Bearer::Absent
        );
    }

    #[test]
    fn an_unreadable_bearer_is_malformed_not_absent() {
        for value in [
            &b"Bearer"[..],
            b"Bearer ",
            b"Bearerabc",
            b"Bearer a b",
            b"Bearer \xff\xfe",
        ] {
            assert_eq!(
                bearer(&headers(&[value])),
                Bearer::Malformed,
                "{}",
                String::from_utf8_lossy(value)
            );
        }
        assert_eq!(
            bearer(&headers(&[b"Bearer a", b"Bearer b"])),
            Bearer::Malformed
        );
        assert_eq!(
            bearer(&headers(&[b"Basic YTpi", b"Bearer b"])),
            Bearer::Malformed
        );
    }
}
