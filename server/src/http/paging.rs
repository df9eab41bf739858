//! The `limit` of a page of results, read the same way by every list and the search.

use crate::error::ApiError;

/// Results per page when the client does not say, and the most it may ask for.
const DEFAULT_PAGE: u32 = 50;
const MAX_PAGE: u32 = 200;

/// `limit` of a list or a search: 1–200, default 50.
pub fn parse_limit(text: Option<&str>) -> Result<u32, ApiError> {
    match text {
        None => Ok(DEFAULT_PAGE),
        Some(text) => match text.parse::<u32>() {
            Ok(n) if (1..=MAX_PAGE).contains(&n) => Ok(n),
            _ => Err(ApiError::InvalidQuery(format!(
                "limit must be a whole number from 1 to {MAX_PAGE}, got {text:?}"
            ))),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_is_a_whole_number_from_1_to_200_and_50_when_absent() {
        assert_eq!(parse_limit(None).unwrap(), 50);
        assert_eq!(parse_limit(Some("1")).unwrap(), 1);
        assert_eq!(parse_limit(Some("200")).unwrap(), 200);
        assert!(parse_limit(Some("0")).is_err());
        assert!(parse_limit(Some("201")).is_err());
        assert!(parse_limit(Some("-1")).is_err());
        assert!(parse_limit(Some("ten")).is_err());
    }
}
