//! One reading of an HTTP answer into an [`AttemptOutcome`], shared by the browser's fetch
//! transport and the native one, so the two can never classify an answer differently.

use std::time::SystemTime;

use super::retry_policy::{AttemptOutcome, parse_retry_after};
use crate::api::{Note, Problem};

/// An answer as a transport received it: the whole body was read.
pub struct RawAnswer<'a> {
    pub status: u16,
    /// The `Retry-After` header, if any.
    pub retry_after: Option<&'a str>,
    /// The `Idempotent-Replayed` header, if any.
    pub replayed: Option<&'a str>,
    pub body: &'a [u8],
}

/// Turns an answer into the outcome of the attempt. `now` reads `Retry-After` dates.
pub fn read_answer(answer: RawAnswer<'_>, now: SystemTime) -> AttemptOutcome {
    if (200..300).contains(&answer.status) {
        return match serde_json::from_slice::<Note>(answer.body) {
            Ok(note) => AttemptOutcome::Saved {
                note,
                replayed: answer.replayed.is_some_and(|v| v.trim() == "true"),
            },
            // A success whose body is not the note (cut off, or rewritten by a proxy):
            // the write may be stored, its answer is not readable. A retry with the same
            // key gets the replay.
            Err(error) => AttemptOutcome::Network {
                reason: format!("unreadable answer: {error}"),
            },
        };
    }
    AttemptOutcome::Answered {
        status: answer.status,
        retry_after: answer
            .retry_after
            .and_then(|value| parse_retry_after(value, now)),
        problem: serde_json::from_slice::<Problem>(answer.body).ok(),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn raw(status: u16, body: &[u8]) -> RawAnswer<'_> {
        RawAnswer {
            status,
            retry_after: None,
            replayed: None,
            body,
        }
    }

    #[test]
    fn a_success_with_the_note_is_saved_and_says_whether_it_was_replayed() {
        let body = br#"{"id":"n","title":"t","body":"b","written_at":"w","created_at":"c","updated_at":"u","version":1}"#;
        let outcome = read_answer(
            RawAnswer {
                replayed: Some("true"),
                ..raw(201, body)
            },
            SystemTime::UNIX_EPOCH,
        );
        assert!(matches!(
            outcome,
            AttemptOutcome::Saved { replayed: true, .. }
        ));
    }

    #[test]
    fn a_success_without_a_readable_note_counts_as_a_lost_answer() {
        let outcome = read_answer(raw(200, b"<html>proxy page</html>"), SystemTime::UNIX_EPOCH);
        assert!(matches!(outcome, AttemptOutcome::Network { .. }));
    }

    #[test]
    fn a_refusal_keeps_its_status_problem_and_retry_after() {
        let body = br#"{"type":"/problems/database-busy","title":"t","status":503,"detail":"d"}"#;
        let outcome = read_answer(
            RawAnswer {
                retry_after: Some("2"),
                ..raw(503, body)
            },
            SystemTime::UNIX_EPOCH,
        );
        let AttemptOutcome::Answered {
            status,
            retry_after,
            problem,
        } = outcome
        else {
            panic!("an answer")
        };
        assert_eq!(status, 503);
        assert_eq!(retry_after, Some(Duration::from_secs(2)));
        assert_eq!(problem.unwrap().slug(), "database-busy");
    }

    #[test]
    fn a_proxy_error_page_is_an_answer_without_a_problem() {
        let outcome = read_answer(raw(502, b"<h1>Bad Gateway</h1>"), SystemTime::UNIX_EPOCH);
        assert!(matches!(
            outcome,
            AttemptOutcome::Answered {
                status: 502,
                problem: None,
                ..
            }
        ));
    }
}
