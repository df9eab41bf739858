//! One reading of an HTTP answer into an [`AttemptOutcome`], shared by the browser's fetch
//! transport and the native one, so the two can never classify an answer differently.

use std::time::SystemTime;

use super::retry_policy::{AttemptOutcome, parse_retry_after};
use crate::api::{EditAnswer, Note, NoteAnswer, Problem};

/// What a write's success says, by the kind of write.
#[derive(Clone, Debug, PartialEq)]
pub enum WriteAnswer {
    /// A create: the note.
    Created(Note),
    /// An edit: applied, merged, or saved as a conflict copy.
    Edited(Box<EditAnswer>),
    /// A move to the trash or out of it: the note as it now is.
    Moved(Note),
    /// A delete for good (204, no body).
    Purged,
    /// The write was done long ago, and its note has since been deleted for good on
    /// another device (410 `deleted-elsewhere`, to a retry that came after its key's
    /// answer expired): finished, nothing to show but that.
    DeletedElsewhere,
}

impl WriteAnswer {
    /// The note the answer is about, as it now is (an edit's conflict copy when the
    /// note itself is gone).
    pub fn note(&self) -> Option<&Note> {
        match self {
            WriteAnswer::Created(note) | WriteAnswer::Moved(note) => Some(note),
            WriteAnswer::Edited(answer) => answer.note.as_ref().or(answer.copy.as_ref()),
            WriteAnswer::Purged | WriteAnswer::DeletedElsewhere => None,
        }
    }
}

/// Which answer a write expects on success.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnswerShape {
    Created,
    Edited,
    Moved,
    Purged,
}

impl AnswerShape {
    fn read(self, body: &[u8]) -> Result<WriteAnswer, String> {
        let fail = |e: serde_json::Error| e.to_string();
        Ok(match self {
            AnswerShape::Created => {
                WriteAnswer::Created(serde_json::from_slice(body).map_err(fail)?)
            }
            AnswerShape::Edited => {
                WriteAnswer::Edited(Box::new(serde_json::from_slice(body).map_err(fail)?))
            }
            AnswerShape::Moved => WriteAnswer::Moved(
                serde_json::from_slice::<NoteAnswer>(body)
                    .map_err(fail)?
                    .note,
            ),
            AnswerShape::Purged => WriteAnswer::Purged,
        })
    }
}

/// An answer as a transport received it: the whole body was read.
pub struct RawAnswer<'a> {
    pub status: u16,
    /// The `Retry-After` header, if any.
    pub retry_after: Option<&'a str>,
    /// The `Idempotent-Replayed` header, if any.
    pub replayed: Option<&'a str>,
    pub body: &'a [u8],
}

/// Turns an answer into the outcome of the attempt, for a write that expects `shape`.
/// `now` reads `Retry-After` dates.
pub fn read_answer(answer: RawAnswer<'_>, shape: AnswerShape, now: SystemTime) -> AttemptOutcome {
    let problem = || serde_json::from_slice::<Problem>(answer.body).ok();
    if answer.status == 410
        && problem().is_some_and(|p| p.slug() == crate::api::slugs::DELETED_ELSEWHERE)
    {
        return AttemptOutcome::Saved {
            answer: WriteAnswer::DeletedElsewhere,
            replayed: answer.replayed.is_some_and(|v| v.trim() == "true"),
        };
    }
    if (200..300).contains(&answer.status) {
        return match shape.read(answer.body) {
            Ok(written) => AttemptOutcome::Saved {
                answer: written,
                replayed: answer.replayed.is_some_and(|v| v.trim() == "true"),
            },
            // A success whose body is not the note (cut off, or rewritten by a proxy):
            // the write may be stored, its answer is not readable. A retry with the same
            // key gets the replay.
            Err(reason) => AttemptOutcome::Network {
                reason: format!("unreadable answer: {reason}"),
            },
        };
    }
    AttemptOutcome::Answered {
        status: answer.status,
        retry_after: answer
            .retry_after
            .and_then(|value| parse_retry_after(value, now)),
        problem: problem(),
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
            AnswerShape::Created,
            SystemTime::UNIX_EPOCH,
        );
        assert!(matches!(
            outcome,
            AttemptOutcome::Saved { replayed: true, .. }
        ));
    }

    #[test]
    fn a_success_without_a_readable_note_counts_as_a_lost_answer() {
        let outcome = read_answer(
            raw(200, b"<html>proxy page</html>"),
            AnswerShape::Created,
            SystemTime::UNIX_EPOCH,
        );
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
            AnswerShape::Created,
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
    fn each_kind_of_write_reads_its_own_answer() {
        let note = br#"{"id":"n","title":"t","body":"b","written_at":"w","created_at":"c","updated_at":"u","version":2,"trashed_at":"x"}"#;
        let moved = format!(r#"{{"note":{}}}"#, String::from_utf8_lossy(note));
        let outcome = read_answer(
            raw(200, moved.as_bytes()),
            AnswerShape::Moved,
            SystemTime::UNIX_EPOCH,
        );
        let AttemptOutcome::Saved {
            answer: WriteAnswer::Moved(note),
            ..
        } = outcome
        else {
            panic!("{outcome:?}")
        };
        assert_eq!(note.trashed_at.as_deref(), Some("x"));
        let edited = br#"{"outcome":"conflict-copy","note":null,"copy":{"id":"c","title":"t","body":"b","written_at":"w","created_at":"c","updated_at":"u","version":1,"trashed_at":null,"conflict_of":"n"}}"#;
        let outcome = read_answer(
            raw(200, edited),
            AnswerShape::Edited,
            SystemTime::UNIX_EPOCH,
        );
        let AttemptOutcome::Saved { answer, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(answer.note().map(|n| n.id.as_str()), Some("c"));
        assert_eq!(
            read_answer(raw(204, b""), AnswerShape::Purged, SystemTime::UNIX_EPOCH),
            AttemptOutcome::Saved {
                answer: WriteAnswer::Purged,
                replayed: false
            }
        );
    }

    #[test]
    fn a_proxy_error_page_is_an_answer_without_a_problem() {
        let outcome = read_answer(
            raw(502, b"<h1>Bad Gateway</h1>"),
            AnswerShape::Created,
            SystemTime::UNIX_EPOCH,
        );
        assert!(matches!(
            outcome,
            AttemptOutcome::Answered {
                status: 502,
                problem: None,
                ..
            }
        ));
    }

    #[test]
    fn a_write_done_before_its_note_was_deleted_elsewhere_is_finished() {
        let body =
            br#"{"type":"/problems/deleted-elsewhere","title":"Gone","status":410,"detail":"d"}"#;
        for shape in [
            AnswerShape::Created,
            AnswerShape::Edited,
            AnswerShape::Moved,
        ] {
            let outcome = read_answer(raw(410, body), shape, SystemTime::UNIX_EPOCH);
            assert_eq!(
                outcome,
                AttemptOutcome::Saved {
                    answer: WriteAnswer::DeletedElsewhere,
                    replayed: false
                }
            );
        }
        // Any other 410 stays a refusal.
        let other =
            br#"{"type":"/problems/invitation-gone","title":"Gone","status":410,"detail":"d"}"#;
        assert!(matches!(
            read_answer(
                raw(410, other),
                AnswerShape::Created,
                SystemTime::UNIX_EPOCH
            ),
            AttemptOutcome::Answered { status: 410, .. }
        ));
    }
}
