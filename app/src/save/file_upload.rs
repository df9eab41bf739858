//! Uploading a file a note refers to, before the note (PROTOCOL.md "Files"). The name of
//! a file is the SHA-256 of its bytes, so `PUT /api/files/{sha256}` is its own
//! idempotency key: a retry, a second tab or a reload re-sending it stores one file.
//! A burst of attempts follows the notes' retry policy (`retry_policy`): a 2xx is done; a
//! 413 (too large, or over the quota) or a 422 (the bytes do not hash to the name) is
//! refused for good and never re-sent; 429, 5xx and a lost connection are retried with
//! backoff. Free of browser types: the page's XMLHttpRequest and the tests' fakes drive
//! the same code.

use std::future::Future;
use std::time::SystemTime;

use super::outcome::{AttemptOutcome, parse_retry_after};
use super::retry_policy::{NextStep, RetryPolicy};
use super::sender::{BurstEvent, BurstHooks, Clock};
use crate::api::{FILE_MAX_BYTES_DEFAULT, referred_files};
use crate::api::{Problem, ProblemSlug};

/// Makes one attempt to upload one file: its bytes, to its name.
pub trait FileTransport {
    fn put(&self) -> impl Future<Output = AttemptOutcome>;
}

/// How an upload burst ended.
#[derive(Clone, Debug, PartialEq)]
pub enum UploadEnd {
    /// The server holds the file (201 the first time, 200 after).
    Uploaded,
    /// Refused for good (413, 422, …): never sent again; the problem says why.
    Refused { problem: Problem },
    /// Every attempt failed recoverably (or its person must sign in): the next burst
    /// tries again; the last outcome says why.
    Waiting { last: AttemptOutcome },
    /// The browser is offline: no attempt was spent.
    Offline,
}

/// One burst of at most `policy.burst_attempts` attempts.
pub async fn upload_burst(
    transport: &impl FileTransport,
    clock: &impl Clock,
    policy: &RetryPolicy,
    hooks: &mut impl BurstHooks,
) -> UploadEnd {
    let mut n = 0;
    loop {
        if !hooks.is_online() {
            return UploadEnd::Offline;
        }
        n += 1;
        hooks.on_event(BurstEvent::AttemptStarted { n });
        let outcome = transport.put().await;
        let jitter = hooks.jitter();
        match policy.next_step(n, &outcome, jitter) {
            NextStep::Finish => return UploadEnd::Uploaded,
            // Refused for good only when the file itself is the reason: too large, over
            // the quota (413), or bytes that do not hash to their name (422). Anything
            // else the retry policy gives up on (a 404 or 403 from a proxy or an older
            // server, a 400 for a body cut on the way) says nothing about the file: the
            // note waits, and the next burst tries again.
            NextStep::GiveUp if is_the_files_fault(&outcome) => {
                return UploadEnd::Refused {
                    problem: outcome.refusal(),
                };
            }
            NextStep::GiveUp => return UploadEnd::Waiting { last: outcome },
            NextStep::EndBurst => return UploadEnd::Waiting { last: outcome },
            NextStep::RetryAfter(delay) => {
                hooks.on_event(BurstEvent::RetryScheduled {
                    n,
                    delay,
                    outcome: Box::new(outcome),
                });
                clock.sleep(delay).await;
            }
        }
    }
}

fn is_the_files_fault(outcome: &AttemptOutcome) -> bool {
    matches!(
        outcome,
        AttemptOutcome::Answered {
            status: 413 | 422,
            ..
        }
    )
}

/// Reads the answer to a `PUT`. Any 2xx means the file is stored (its body, the file's
/// description, adds nothing the browser needs), so it is kept as a plain answered 2xx,
/// which the retry policy reads as done.
pub fn read_upload_answer(
    status: u16,
    retry_after: Option<&str>,
    body: &[u8],
    now: SystemTime,
) -> AttemptOutcome {
    let problem = (!(200..300).contains(&status))
        .then(|| serde_json::from_slice::<Problem>(body).ok())
        .flatten();
    AttemptOutcome::Answered {
        status,
        retry_after: retry_after.and_then(|value| parse_retry_after(value, now)),
        problem,
    }
}

/// Why a file was refused, in the person's words.
pub fn refusal_sentence(problem: &Problem) -> String {
    match problem.known_slug() {
        Some(ProblemSlug::QuotaExceeded) => {
            "not uploaded: your files would go over your room for files".into()
        }
        Some(ProblemSlug::HashMismatch) => {
            "not uploaded: the bytes that arrived were not the file's (try adding it again)".into()
        }
        _ if problem.status == 413 => format!(
            "not uploaded: too large (files up to {} MiB by default)",
            FILE_MAX_BYTES_DEFAULT / (1024 * 1024)
        ),
        _ => format!("not uploaded: {}", problem.detail),
    }
}

/// The problem a note's intent fails with when a file it refers to was refused: the note
/// is not sent with a reference to a file the server will never hold. It is kept as
/// failed, to be edited (the reference removed) or discarded.
pub fn held_back_by(name: &str, problem: &Problem) -> Problem {
    Problem {
        kind: problem.kind.clone(),
        title: problem.title.clone(),
        status: problem.status,
        detail: format!(
            "the file “{name}” it refers to was {}",
            refusal_sentence(problem).replacen("not uploaded: ", "not uploaded — ", 1)
        ),
    }
}

/// The files of `text` to upload before the note is sent, in the order they appear:
/// those this browser keeps and has not uploaded (`waiting`). A file it does not keep
/// — typed by hand, or uploaded long ago — does not hold the note back.
pub fn files_to_upload_first(text: &str, waiting: impl Fn(&str) -> bool) -> Vec<String> {
    referred_files(text)
        .into_iter()
        .filter(|sha| waiting(sha))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::cell::{Cell, RefCell};
    use std::collections::VecDeque;
    use std::time::Duration;

    use super::*;
    use crate::api::file_href;

    struct Scripted {
        script: RefCell<VecDeque<AttemptOutcome>>,
        puts: Cell<u32>,
    }

    impl Scripted {
        fn new(script: Vec<AttemptOutcome>) -> Self {
            Self {
                script: RefCell::new(script.into()),
                puts: Cell::new(0),
            }
        }
    }

    impl FileTransport for Scripted {
        async fn put(&self) -> AttemptOutcome {
            self.puts.set(self.puts.get() + 1);
            self.script
                .borrow_mut()
                .pop_front()
                .expect("no attempt beyond the script")
        }
    }

    #[derive(Default)]
    struct FakeClock {
        slept: RefCell<Vec<Duration>>,
    }

    impl Clock for FakeClock {
        async fn sleep(&self, delay: Duration) {
            self.slept.borrow_mut().push(delay);
        }
    }

    struct Hooks {
        online: bool,
    }

    impl BurstHooks for Hooks {
        fn is_online(&self) -> bool {
            self.online
        }
        fn jitter(&mut self) -> f64 {
            1.0
        }
    }

    fn answer(status: u16, body: &str) -> AttemptOutcome {
        read_upload_answer(status, None, body.as_bytes(), SystemTime::UNIX_EPOCH)
    }

    fn problem_json(slug: &str, status: u16) -> String {
        format!(
            r#"{{"type":"/problems/{slug}","title":"t","status":{status},"detail":"server says {slug}"}}"#
        )
    }

    fn run(transport: &Scripted, online: bool) -> (UploadEnd, Vec<Duration>) {
        let clock = FakeClock::default();
        let end = futures::executor::block_on(upload_burst(
            transport,
            &clock,
            &RetryPolicy::default(),
            &mut Hooks { online },
        ));
        (end, clock.slept.into_inner())
    }

    #[test]
    fn a_first_upload_or_a_replay_is_done_after_one_put() {
        for status in [201, 200] {
            let transport = Scripted::new(vec![answer(status, r#"{"file":{}}"#)]);
            assert_eq!(run(&transport, true).0, UploadEnd::Uploaded);
            assert_eq!(transport.puts.get(), 1);
        }
    }

    #[test]
    fn a_busy_server_or_a_lost_connection_is_retried_with_backoff_until_it_is_stored() {
        let transport = Scripted::new(vec![
            answer(503, &problem_json("database-busy", 503)),
            AttemptOutcome::Network {
                reason: "reset".into(),
            },
            answer(429, &problem_json("too-many-uploads", 429)),
            answer(201, "{}"),
        ]);
        let (end, slept) = run(&transport, true);
        assert_eq!(end, UploadEnd::Uploaded);
        assert_eq!(transport.puts.get(), 4);
        assert_eq!(
            slept,
            [500, 1_000, 2_000].map(Duration::from_millis).to_vec()
        );
    }

    #[test]
    fn an_upload_over_the_quota_too_large_or_mismatched_is_refused_after_one_put() {
        let cases = [
            (413, problem_json("quota-exceeded", 413), "room for files"),
            (413, problem_json("payload-too-large", 413), "too large"),
            (413, String::new(), "too large"),
            (
                422,
                problem_json("hash-mismatch", 422),
                "were not the file's",
            ),
        ];
        for (status, body, says) in cases {
            let transport = Scripted::new(vec![answer(status, &body)]);
            let (end, slept) = run(&transport, true);
            let UploadEnd::Refused { problem } = end else {
                panic!("{status} {body}: {end:?}");
            };
            assert!(refusal_sentence(&problem).contains(says), "{problem:?}");
            assert_eq!(transport.puts.get(), 1);
            assert!(slept.is_empty());
        }
    }

    #[test]
    fn a_refusal_that_is_not_the_files_fault_waits_for_the_next_burst_instead_of_failing_it() {
        // A proxy's 404 or 403, a body cut on the way (400): the file may be fine.
        for (status, body) in [
            (404, problem_json("not-found", 404)),
            (403, String::from("<html>forbidden</html>")),
            (400, problem_json("invalid-body", 400)),
        ] {
            let transport = Scripted::new(vec![answer(status, &body)]);
            let (end, _) = run(&transport, true);
            assert!(
                matches!(end, UploadEnd::Waiting { .. }),
                "{status}: {end:?}"
            );
            assert_eq!(transport.puts.get(), 1);
        }
    }

    #[test]
    fn offline_no_put_is_spent_and_a_spent_burst_waits_for_the_next() {
        let transport = Scripted::new(vec![]);
        assert_eq!(run(&transport, false).0, UploadEnd::Offline);
        assert_eq!(transport.puts.get(), 0);

        let lost = AttemptOutcome::Network {
            reason: "offline".into(),
        };
        let transport = Scripted::new(vec![lost.clone(); 5]);
        assert_eq!(run(&transport, true).0, UploadEnd::Waiting { last: lost });
        assert_eq!(transport.puts.get(), 5);
    }

    #[test]
    fn an_ended_session_waits_for_sign_in_without_a_second_put() {
        let transport = Scripted::new(vec![answer(401, &problem_json("unauthorized", 401))]);
        assert!(matches!(run(&transport, true).0, UploadEnd::Waiting { .. }));
        assert_eq!(transport.puts.get(), 1);
    }

    #[test]
    fn only_kept_files_not_yet_uploaded_hold_a_note_back_in_the_order_they_appear() {
        let (a, b, c) = ("a".repeat(64), "b".repeat(64), "c".repeat(64));
        let text = format!(
            "![x]({}) [y]({}) ![z]({}) ![x again]({})",
            file_href(&c),
            file_href(&a),
            file_href(&b),
            file_href(&c)
        );
        // a: kept, uploaded; b and c: kept, waiting.
        let waiting = |sha: &str| sha == b || sha == c;
        assert_eq!(files_to_upload_first(&text, waiting), vec![c.clone(), b]);
        assert!(files_to_upload_first("no files", |_| true).is_empty());
        assert!(files_to_upload_first(&text, |_| false).is_empty());
    }

    #[test]
    fn a_note_held_back_by_a_refused_file_names_the_file_and_why() {
        let problem: Problem = serde_json::from_str(&problem_json("quota-exceeded", 413)).unwrap();
        let held = held_back_by("cat.png", &problem);
        assert_eq!(held.status, 413);
        assert!(held.detail.contains("“cat.png”"), "{}", held.detail);
        assert!(held.detail.contains("room for files"), "{}", held.detail);
    }
}
