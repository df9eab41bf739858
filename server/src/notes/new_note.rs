//! A create request that passed every check, in the canonical form that is stored and
//! fingerprinted.

use app::api::{NOTES_PATH, NewNote, Note, validate_draft};

use crate::error::ApiError;
use crate::idempotency::Fingerprint;
use crate::text::tags;
use crate::timestamp;

/// When Save was pressed, as the client sent it: an RFC 3339 time from 1970 on, written in
/// UTC to the millisecond (`timestamp::normalize_client_time`), or 422 saying so.
pub fn written_at(raw: &str) -> Result<String, ApiError> {
    timestamp::normalize_client_time(raw).ok_or_else(|| {
        ApiError::ValidationFailed(format!(
            "written_at must be an RFC 3339 time from 1970 on, such as \
             2026-11-30T05:00:00.000Z, got {raw:?}"
        ))
    })
}

/// A valid new note: title trimmed, `written_at` in UTC to the millisecond.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidNewNote {
    pub title: String,
    pub body: String,
    pub written_at: String,
}

impl ValidNewNote {
    /// Checks the bounds of PROTOCOL.md (the same function the browser runs) and the time.
    pub fn parse(request: NewNote) -> Result<Self, ApiError> {
        validate_draft(&request.title, &request.body)
            .map_err(|e| ApiError::ValidationFailed(e.to_string()))?;
        let written_at = written_at(&request.written_at)?;
        Ok(Self {
            title: request.title.trim().to_owned(),
            body: request.body,
            written_at,
        })
    }

    /// The note this request creates: a new id, created now, version 1 — written when the
    /// client says, unless that is ahead of the server's clock past the tolerance.
    pub fn to_note(&self) -> Note {
        let received = timestamp::now();
        let now = timestamp::format(received);
        Note {
            id: uuid::Uuid::new_v4().to_string(),
            title: self.title.clone(),
            body: self.body.clone(),
            written_at: timestamp::believable_written_at(&self.written_at, received),
            created_at: now.clone(),
            updated_at: now,
            version: 1,
            trashed_at: None,
            conflict_of: None,
            tags: tags::of_note(&self.title, &self.body),
            pinned: false,
            html: None,
        }
    }

    /// The fingerprint of `POST /api/notes` with this payload.
    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(
            "POST",
            NOTES_PATH,
            &[&self.title, &self.body, &self.written_at],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(title: &str, written_at: &str) -> NewNote {
        NewNote {
            title: title.into(),
            body: "b".into(),
            written_at: written_at.into(),
        }
    }

    #[test]
    fn titles_are_stored_trimmed_and_times_in_utc() {
        let note =
            ValidNewNote::parse(request("  Groceries ", "2026-11-30T06:00:00+01:00")).unwrap();
        assert_eq!(note.title, "Groceries");
        assert_eq!(note.written_at, "2026-11-30T05:00:00.000Z");
    }

    #[test]
    fn the_same_instant_written_two_ways_has_one_fingerprint() {
        let a = ValidNewNote::parse(request("t", "2026-11-30T06:00:00+01:00")).unwrap();
        let b = ValidNewNote::parse(request("t", "2026-11-30T05:00:00.000Z")).unwrap();
        assert_eq!(a.fingerprint(), b.fingerprint());
    }

    #[test]
    fn an_unreadable_time_fails_validation() {
        assert!(matches!(
            ValidNewNote::parse(request("t", "now")),
            Err(ApiError::ValidationFailed(_))
        ));
    }

    #[test]
    fn an_empty_title_fails_validation() {
        assert!(matches!(
            ValidNewNote::parse(request(" \n ", "2026-11-30T05:00:00Z")),
            Err(ApiError::ValidationFailed(_))
        ));
    }
}

#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic_the_request_decoder(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            if let Ok(request) = serde_json::from_slice::<NewNote>(&bytes) {
                let _ = ValidNewNote::parse(request);
            }
        }

        #[test]
        fn every_valid_note_survives_the_wire_and_validation(
            title in "[^\\p{C}]{0,20}[a-z][^\\p{C}]{0,20}",
            body in "[^\\p{C}\\n]{0,200}",
            millis in 0i64..4_102_444_800_000,
        ) {
            let written_at = chrono::DateTime::from_timestamp_millis(millis)
                .unwrap()
                .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
            let wire = serde_json::to_vec(&NewNote { title: title.clone(), body: body.clone(), written_at: written_at.clone() }).unwrap();
            let valid = ValidNewNote::parse(serde_json::from_slice(&wire).unwrap()).unwrap();
            prop_assert_eq!(valid.title, title.trim());
            prop_assert_eq!(valid.body, body);
            prop_assert_eq!(valid.written_at, written_at);
        }
    }
}
