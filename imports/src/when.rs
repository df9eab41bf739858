//! The dates and times exports write, read as UTC instants.

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};

/// Reads a date or a date and time as front matter and exports write them: RFC 3339
/// (`2021-08-07T17:03:33.718Z`, `…+02:00`), a date and time without a zone
/// (`2019-05-01 16:54`, `2019-05-01T16:54:12.5`, taken as UTC), or a date alone
/// (`2026-01-14`, its midnight UTC). Anything else is `None`.
pub(crate) fn parse_instant(text: &str) -> Option<DateTime<Utc>> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    if let Ok(at) = DateTime::parse_from_rfc3339(text) {
        return Some(at.with_timezone(&Utc));
    }
    const NAIVE: [&str; 4] = [
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M",
        "%Y-%m-%dT%H:%M",
    ];
    for format in NAIVE {
        if let Ok(at) = NaiveDateTime::parse_from_str(text, format) {
            return Some(at.and_utc());
        }
    }
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|at| at.and_utc())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_datetimes_and_zoned_times_are_read_as_utc() {
        let at = |s: &str| parse_instant(s).map(|t| t.to_rfc3339());
        assert_eq!(at("2026-01-14"), Some("2026-01-14T00:00:00+00:00".into()));
        assert_eq!(
            at("2019-05-01 16:54"),
            Some("2019-05-01T16:54:00+00:00".into())
        );
        assert_eq!(
            at("2021-08-07T17:03:33.718Z"),
            Some("2021-08-07T17:03:33.718+00:00".into())
        );
        assert_eq!(
            at("2021-08-07T19:03:33+02:00"),
            Some("2021-08-07T17:03:33+00:00".into())
        );
        assert_eq!(at("yesterday"), None);
        assert_eq!(at(""), None);
    }
}
