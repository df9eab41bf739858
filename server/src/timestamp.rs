//! Timestamps as the database and the API carry them: RFC 3339 in UTC, fixed width, so
//! that text order is time order.

use chrono::{DateTime, SecondsFormat, Utc};

pub fn now() -> DateTime<Utc> {
    Utc::now()
}

/// `at` plus `span`; the configuration keeps spans small enough to represent (at most
/// ten years), and a span past the calendar's end saturates rather than panics.
pub fn after(at: DateTime<Utc>, span: std::time::Duration) -> DateTime<Utc> {
    chrono::Duration::from_std(span)
        .ok()
        .and_then(|span| at.checked_add_signed(span))
        .unwrap_or(DateTime::<Utc>::MAX_UTC)
}

/// `at` minus `span`, saturating at the calendar's start.
pub fn before(at: DateTime<Utc>, span: std::time::Duration) -> DateTime<Utc> {
    chrono::Duration::from_std(span)
        .ok()
        .and_then(|span| at.checked_sub_signed(span))
        .unwrap_or(DateTime::<Utc>::MIN_UTC)
}

/// `2026-11-30T05:00:00.123456Z`: microseconds, always six digits.
pub fn format(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// Reads a client's RFC 3339 time (any offset) and writes it in UTC to the millisecond,
/// the precision browsers have, so equal instants have one spelling.
pub fn normalize_client_time(text: &str) -> Option<String> {
    let parsed = DateTime::parse_from_rfc3339(text.trim()).ok()?;
    Some(
        parsed
            .with_timezone(&Utc)
            .to_rfc3339_opts(SecondsFormat::Millis, true),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_times_in_any_offset_become_utc_milliseconds() {
        assert_eq!(
            normalize_client_time("2026-11-30T06:00:00+01:00").as_deref(),
            Some("2026-11-30T05:00:00.000Z")
        );
        assert_eq!(
            normalize_client_time("2026-11-30T05:00:00.123Z").as_deref(),
            Some("2026-11-30T05:00:00.123Z")
        );
        assert_eq!(normalize_client_time("yesterday"), None);
        assert_eq!(normalize_client_time("2026-13-01T00:00:00Z"), None);
    }

    #[test]
    fn stored_timestamps_have_one_width_so_text_order_is_time_order() {
        let a = format(
            DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
                .unwrap()
                .to_utc(),
        );
        let b = format(
            DateTime::parse_from_rfc3339("2026-01-01T00:00:00.5Z")
                .unwrap()
                .to_utc(),
        );
        assert_eq!(a.len(), b.len());
        assert!(a < b);
    }
}
