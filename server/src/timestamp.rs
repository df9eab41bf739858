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
/// the precision browsers have, so equal instants have one spelling. A time before 1970
/// is no time a browser pressed Save at: `None`, like text that is no time.
pub fn normalize_client_time(text: &str) -> Option<String> {
    let parsed = DateTime::parse_from_rfc3339(text.trim()).ok()?;
    if parsed.timestamp() < 0 {
        return None;
    }
    Some(
        parsed
            .with_timezone(&Utc)
            .to_rfc3339_opts(SecondsFormat::Millis, true),
    )
}

/// How far ahead of the server's clock a client's `written_at` may be and still be
/// believed (clocks drift; a device's clock set days ahead is not a fact about the note).
pub const CLIENT_CLOCK_TOLERANCE: std::time::Duration = std::time::Duration::from_secs(300);

/// The time a note records as written: the client's `written_at` (normalized), or `now`
/// (the time the server received the write) when the client's is further ahead of `now`
/// than [`CLIENT_CLOCK_TOLERANCE`]. The fingerprint keeps the client's value, so a retry
/// of the same request is still the same request.
pub fn believable_written_at(written_at: &str, now: DateTime<Utc>) -> String {
    let latest = after(now, CLIENT_CLOCK_TOLERANCE);
    match DateTime::parse_from_rfc3339(written_at) {
        Ok(time) if time.with_timezone(&Utc) <= latest => written_at.to_owned(),
        _ => format(now),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_before_1970_is_no_client_time() {
        assert_eq!(normalize_client_time("0001-01-01T00:00:00Z"), None);
        assert_eq!(normalize_client_time("1969-12-31T23:59:59.999Z"), None);
        assert!(normalize_client_time("1970-01-01T00:00:00Z").is_some());
    }

    #[test]
    fn a_written_at_far_ahead_of_the_server_is_stored_as_the_time_received() {
        let now = DateTime::parse_from_rfc3339("2026-11-30T05:00:00Z")
            .unwrap()
            .to_utc();
        let slightly = "2026-11-30T05:04:00.000Z";
        assert_eq!(believable_written_at(slightly, now), slightly);
        let past = "2020-01-01T00:00:00.000Z";
        assert_eq!(believable_written_at(past, now), past);
        assert_eq!(
            believable_written_at("9999-12-31T23:59:59.000Z", now),
            format(now)
        );
        assert_eq!(
            believable_written_at("2026-12-03T05:00:00.000Z", now),
            format(now)
        );
    }

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
