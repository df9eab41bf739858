//! What one attempt meant, read once: the [`AttemptOutcome`] of an HTTP answer (shared by
//! the browser's fetch transport and the native one, so the two can never classify an
//! answer differently), the [`WriteAnswer`] a success carries, `Retry-After`, and the two
//! things an outcome can name beyond its status — that its person must sign in
//! ([`SignInNeeded`], the one reading of a 401) and why the server cannot take writes for
//! now ([`WaitCause`]). The retry policy decides from these; it reads no status itself
//! except to sort the rest.

use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::api::{EditAnswer, Note, NoteAnswer, Problem, ProblemSlug, TagRenamed};

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
    /// A tag renamed: how many notes it changed.
    Renamed(TagRenamed),
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
            WriteAnswer::Purged | WriteAnswer::Renamed(_) | WriteAnswer::DeletedElsewhere => None,
        }
    }
}

/// Which answer a write expects on success.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnswerShape {
    Created,
    Edited,
    /// A move to the trash or out of it, or a pin: `{"note": …}`.
    Moved,
    Purged,
    /// A tag rename: `{"renamed": n}`.
    Renamed,
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
            AnswerShape::Renamed => {
                WriteAnswer::Renamed(serde_json::from_slice(body).map_err(fail)?)
            }
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
    if answer.status == 410 && problem().is_some_and(|p| p.is(ProblemSlug::DeletedElsewhere)) {
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

/// What one attempt came back with.
#[derive(Clone, Debug, PartialEq)]
pub enum AttemptOutcome {
    /// A 2xx with the write's readable answer (the first answer, or a replay of it).
    Saved { answer: WriteAnswer, replayed: bool },
    /// No HTTP answer: connection refused or reset, DNS, offline, response lost.
    Network { reason: String },
    /// The client-side timeout for one attempt ran out.
    TimedOut,
    /// Any other HTTP answer.
    Answered {
        status: u16,
        retry_after: Option<Duration>,
        problem: Option<Problem>,
    },
}

impl AttemptOutcome {
    /// The problem to show for a permanent refusal: the server's own, or one made from the
    /// status when the body was not problem+json (something in between answered).
    pub fn refusal(&self) -> Problem {
        match self {
            AttemptOutcome::Answered {
                problem: Some(problem),
                ..
            } => problem.clone(),
            AttemptOutcome::Answered { status, .. } => Problem {
                kind: "about:blank".into(),
                title: "Refused".into(),
                status: *status,
                detail: format!("the server answered {status}"),
            },
            other => Problem {
                kind: "about:blank".into(),
                title: "Refused".into(),
                status: 0,
                detail: format!("{other:?}"),
            },
        }
    }
}

/// Why a write cannot be sent until its person signs in: nothing is wrong with it; it
/// waits, kept, and is sent with its own key once they have signed in again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SignInNeeded {
    /// 401: the session ended.
    SessionEnded,
    /// 409 `signed-in-as-someone-else`: someone other than the write's person signed in
    /// on this browser since the page was opened.
    SomeoneElseSignedIn,
}

impl AttemptOutcome {
    /// Whether (and why) the write waits for its person to sign in. The one place a 401
    /// is read.
    pub fn sign_in_needed(&self) -> Option<SignInNeeded> {
        match self {
            AttemptOutcome::Answered { status: 401, .. } => Some(SignInNeeded::SessionEnded),
            AttemptOutcome::Answered {
                status: 409,
                problem: Some(problem),
                ..
            } if problem.is(ProblemSlug::SignedInAsSomeoneElse) => {
                Some(SignInNeeded::SomeoneElseSignedIn)
            }
            _ => None,
        }
    }
}

/// Why the server cannot take a write for now, when it said so: the person is told while
/// the intent waits, instead of a bare failure, since only the server's operator can end it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WaitCause {
    /// 507: the server's disk is full.
    StorageFull,
    /// 503 `database-unavailable`: the server's database is down or restarting.
    DatabaseUnavailable,
}

impl WaitCause {
    /// The cause an outcome names, if it names one.
    pub fn of(outcome: &AttemptOutcome) -> Option<Self> {
        match outcome {
            AttemptOutcome::Answered { status: 507, .. } => Some(WaitCause::StorageFull),
            AttemptOutcome::Answered {
                status: 503,
                problem: Some(problem),
                ..
            } if problem.is(ProblemSlug::DatabaseUnavailable) => {
                Some(WaitCause::DatabaseUnavailable)
            }
            _ => None,
        }
    }

    /// What the person reads.
    pub fn sentence(self) -> &'static str {
        match self {
            WaitCause::StorageFull => {
                "the server's disk is full — your note is kept here and will be sent"
            }
            WaitCause::DatabaseUnavailable => {
                "the server's database is down — your note is kept here and will be sent"
            }
        }
    }
}

/// Parses a `Retry-After` value: delay-seconds or an HTTP date, measured from `now`.
/// A date in the past means "now"; anything unreadable is ignored.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        return value.parse::<u64>().ok().map(Duration::from_secs);
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
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
        assert_eq!(
            problem.and_then(|p| p.known_slug()),
            Some(ProblemSlug::DatabaseBusy)
        );
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
    fn a_tag_rename_reads_how_many_notes_it_changed_and_nothing_else_counts() {
        let outcome = read_answer(
            raw(200, br#"{"renamed":3}"#),
            AnswerShape::Renamed,
            SystemTime::UNIX_EPOCH,
        );
        assert_eq!(
            outcome,
            AttemptOutcome::Saved {
                answer: WriteAnswer::Renamed(TagRenamed { renamed: 3 }),
                replayed: false
            }
        );
        // A 200 that is not the count (a proxy's page, a body cut off) is a lost answer:
        // the retry with the same key gets the replay.
        for body in [&b"<html>proxy</html>"[..], br#"{"renam"#] {
            assert!(matches!(
                read_answer(raw(200, body), AnswerShape::Renamed, SystemTime::UNIX_EPOCH),
                AttemptOutcome::Network { .. }
            ));
        }
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

    #[test]
    fn retry_after_reads_seconds_and_http_dates() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_480); // 2015-10-21 07:28:00 GMT
        assert_eq!(
            parse_retry_after("120", now),
            Some(Duration::from_secs(120))
        );
        assert_eq!(parse_retry_after(" 0 ", now), Some(Duration::ZERO));
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("-5", now), None);
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("", now), None);
    }
}
