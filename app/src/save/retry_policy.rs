//! The retry policy (PROTOCOL.md §Client 3–4): pure functions from the outcome of one
//! attempt to the next step. No clock, no randomness, no browser: the caller passes the
//! jitter factor, so tests can pin it. What an answer means is read in [`super::outcome`];
//! this module only decides what follows from it.

use std::time::Duration;

use super::outcome::AttemptOutcome;
use crate::api::ProblemSlug;

/// How an outcome is treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The note is stored; the intent is finished.
    Done,
    /// Nothing says the payload is wrong: retry with the same key.
    Recoverable,
    /// The server refused this payload for good: never resend it unchanged.
    Permanent,
    /// Its person is not signed in: the session ended (401), or someone else signed in on
    /// this browser since the page was opened (409 `signed-in-as-someone-else`). Nothing
    /// is wrong with the write; it waits, kept, until its person signs in again, and is
    /// then sent with its own key.
    SignInNeeded,
}

/// Sorts an outcome into the protocol's table.
pub fn classify(outcome: &AttemptOutcome) -> Verdict {
    // A 401, or a write refused for being someone else's than the signed-in person's.
    if outcome.sign_in_needed().is_some() {
        return Verdict::SignInNeeded;
    }
    match outcome {
        AttemptOutcome::Saved { .. } => Verdict::Done,
        AttemptOutcome::Network { .. } | AttemptOutcome::TimedOut => Verdict::Recoverable,
        AttemptOutcome::Answered {
            status, problem, ..
        } => match status {
            200..=299 => Verdict::Done,
            408 | 429 => Verdict::Recoverable,
            // Only the in-use conflict is a "wait and retry"; any other 409 is a refusal.
            409 => match problem {
                Some(p) if p.is(ProblemSlug::IdempotencyKeyInUse) => Verdict::Recoverable,
                _ => Verdict::Permanent,
            },
            // Every other 4xx (400, 403, 404, 413, 415, 422, and a quota-like 402)
            // says the request itself is wrong: resending it cannot help.
            400..=499 => Verdict::Permanent,
            // 500, 502, 503, 504, 507 (the server's disk is full) and any other
            // server-side failure: nothing was stored (5xx answers are never stored), so
            // the same key may run again.
            _ => Verdict::Recoverable,
        },
    }
}

/// What the sender does after an attempt.
#[derive(Clone, Debug, PartialEq)]
pub enum NextStep {
    /// Stop: the intent is saved.
    Finish,
    /// Sleep this long, then make the next attempt of this burst.
    RetryAfter(Duration),
    /// The burst is spent: keep the intent waiting for the next burst.
    EndBurst,
    /// Stop for good: the payload was refused.
    GiveUp,
}

/// Backoff and burst settings. The defaults are the protocol's.
#[derive(Clone, Debug, PartialEq)]
pub struct RetryPolicy {
    /// Delay before the first retry, before jitter.
    pub base_delay: Duration,
    /// No backoff delay grows past this.
    pub max_delay: Duration,
    /// The longest `Retry-After` honoured; a server asking for more gets this.
    pub max_retry_after: Duration,
    /// Attempts in one burst.
    pub burst_attempts: u32,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(300),
            burst_attempts: 5,
        }
    }
}

impl RetryPolicy {
    /// `min(max_delay, base × 2^(n-1))`: the delay before retry `n` (n ≥ 1), before jitter.
    pub fn backoff(&self, retry: u32) -> Duration {
        let exponent = retry.saturating_sub(1).min(31);
        self.base_delay
            .saturating_mul(1u32 << exponent)
            .min(self.max_delay)
    }

    /// The wait before retry `n`: the backoff scaled by `jitter` (clamped to [0.5, 1]),
    /// unless the server's `Retry-After` asks for longer.
    pub fn delay_before_retry(
        &self,
        retry: u32,
        jitter: f64,
        retry_after: Option<Duration>,
    ) -> Duration {
        let jittered = self.backoff(retry).mul_f64(jitter.clamp(0.5, 1.0));
        match retry_after {
            Some(asked) => jittered.max(asked.min(self.max_retry_after)),
            None => jittered,
        }
    }

    /// Decides what follows attempt number `attempt_in_burst` (1-based) of a burst.
    pub fn next_step(
        &self,
        attempt_in_burst: u32,
        outcome: &AttemptOutcome,
        jitter: f64,
    ) -> NextStep {
        match classify(outcome) {
            Verdict::Done => NextStep::Finish,
            Verdict::Permanent => NextStep::GiveUp,
            // No attempt can succeed before the person signs in again.
            Verdict::SignInNeeded => NextStep::EndBurst,
            Verdict::Recoverable if attempt_in_burst >= self.burst_attempts => NextStep::EndBurst,
            Verdict::Recoverable => {
                let retry_after = match outcome {
                    AttemptOutcome::Answered { retry_after, .. } => *retry_after,
                    _ => None,
                };
                NextStep::RetryAfter(self.delay_before_retry(attempt_in_burst, jitter, retry_after))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Problem;
    use crate::save::outcome::{SignInNeeded, WaitCause};

    fn answered(status: u16, retry_after: Option<Duration>) -> AttemptOutcome {
        AttemptOutcome::Answered {
            status,
            retry_after,
            problem: None,
        }
    }

    fn unreachable() -> AttemptOutcome {
        AttemptOutcome::Network {
            reason: "connection refused".into(),
        }
    }

    fn problem(slug: ProblemSlug) -> Problem {
        Problem {
            kind: slug.type_uri(),
            title: "t".into(),
            status: 409,
            detail: "d".into(),
        }
    }

    #[test]
    fn backoff_doubles_from_half_a_second_and_stops_at_thirty() {
        let policy = RetryPolicy::default();
        let delays: Vec<_> = (1..=8).map(|n| policy.backoff(n).as_millis()).collect();
        assert_eq!(
            delays,
            [500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]
        );
        assert_eq!(policy.backoff(1_000), Duration::from_secs(30));
    }

    #[test]
    fn jitter_scales_the_backoff_between_half_and_all_of_it() {
        let policy = RetryPolicy::default();
        assert_eq!(
            policy.delay_before_retry(2, 0.5, None),
            Duration::from_millis(500)
        );
        assert_eq!(
            policy.delay_before_retry(2, 1.0, None),
            Duration::from_millis(1_000)
        );
        // Out-of-range factors are clamped rather than trusted.
        assert_eq!(
            policy.delay_before_retry(2, 0.0, None),
            Duration::from_millis(500)
        );
        assert_eq!(
            policy.delay_before_retry(2, 7.0, None),
            Duration::from_millis(1_000)
        );
    }

    #[test]
    fn a_larger_retry_after_wins_over_the_backoff_and_a_smaller_one_does_not() {
        let policy = RetryPolicy::default();
        let slow = answered(503, Some(Duration::from_secs(3)));
        assert_eq!(
            policy.next_step(1, &slow, 1.0),
            NextStep::RetryAfter(Duration::from_secs(3))
        );
        let quick = answered(429, Some(Duration::from_millis(100)));
        assert_eq!(
            policy.next_step(2, &quick, 1.0),
            NextStep::RetryAfter(Duration::from_millis(1_000))
        );
        let absurd = answered(503, Some(Duration::from_secs(86_400)));
        assert_eq!(
            policy.next_step(1, &absurd, 1.0),
            NextStep::RetryAfter(Duration::from_secs(300))
        );
    }

    #[test]
    fn the_protocol_table_sorts_every_listed_status() {
        for status in [408, 429, 500, 502, 503, 504, 507] {
            assert_eq!(
                classify(&answered(status, None)),
                Verdict::Recoverable,
                "{status}"
            );
        }
        for status in [400, 402, 403, 404, 413, 415, 422] {
            assert_eq!(
                classify(&answered(status, None)),
                Verdict::Permanent,
                "{status}"
            );
        }
        assert_eq!(classify(&unreachable()), Verdict::Recoverable);
        assert_eq!(classify(&AttemptOutcome::TimedOut), Verdict::Recoverable);
    }

    #[test]
    fn only_the_key_in_use_conflict_is_retried() {
        let in_use = AttemptOutcome::Answered {
            status: 409,
            retry_after: Some(Duration::from_secs(1)),
            problem: Some(problem(ProblemSlug::IdempotencyKeyInUse)),
        };
        assert_eq!(classify(&in_use), Verdict::Recoverable);
        let other = AttemptOutcome::Answered {
            status: 409,
            retry_after: None,
            problem: Some(problem(ProblemSlug::UsernameTaken)),
        };
        assert_eq!(classify(&other), Verdict::Permanent);
    }

    #[test]
    fn a_full_disk_is_waited_out_like_a_busy_server_and_says_so() {
        let full = AttemptOutcome::Answered {
            status: 507,
            retry_after: Some(Duration::from_secs(30)),
            problem: Some(Problem {
                kind: "/problems/storage-full".into(),
                title: "Insufficient Storage".into(),
                status: 507,
                detail: "the server's disk is full".into(),
            }),
        };
        assert_eq!(classify(&full), Verdict::Recoverable);
        assert_eq!(
            RetryPolicy::default().next_step(1, &full, 1.0),
            NextStep::RetryAfter(Duration::from_secs(30))
        );
        assert_eq!(WaitCause::of(&full), Some(WaitCause::StorageFull));
        assert_eq!(
            WaitCause::of(&full).unwrap().sentence(),
            "the server's disk is full — your note is kept here and will be sent"
        );
        // A 507 from anything in between (no problem document) means the same.
        assert_eq!(
            WaitCause::of(&answered(507, None)),
            Some(WaitCause::StorageFull)
        );
    }

    #[test]
    fn an_unreachable_database_is_named_but_a_busy_one_or_a_bug_is_not() {
        let with_slug = |status: u16, slug: ProblemSlug| AttemptOutcome::Answered {
            status,
            retry_after: Some(Duration::from_secs(2)),
            problem: Some(Problem {
                kind: slug.type_uri(),
                title: "t".into(),
                status,
                detail: "d".into(),
            }),
        };
        assert_eq!(
            WaitCause::of(&with_slug(503, ProblemSlug::DatabaseUnavailable)),
            Some(WaitCause::DatabaseUnavailable)
        );
        assert_eq!(
            WaitCause::of(&with_slug(503, ProblemSlug::DatabaseBusy)),
            None
        );
        assert_eq!(WaitCause::of(&with_slug(500, ProblemSlug::Internal)), None);
        assert_eq!(WaitCause::of(&unreachable()), None);
    }

    #[test]
    fn an_ended_session_ends_the_burst_at_once_and_keeps_the_intent() {
        assert_eq!(classify(&answered(401, None)), Verdict::SignInNeeded);
        assert_eq!(
            RetryPolicy::default().next_step(1, &answered(401, None), 1.0),
            NextStep::EndBurst
        );
    }

    #[test]
    fn a_write_refused_for_someone_else_waits_for_its_person_and_is_never_given_up() {
        let refused = AttemptOutcome::Answered {
            status: 409,
            retry_after: None,
            problem: Some(problem(ProblemSlug::SignedInAsSomeoneElse)),
        };
        assert_eq!(
            refused.sign_in_needed(),
            Some(SignInNeeded::SomeoneElseSignedIn)
        );
        assert_eq!(classify(&refused), Verdict::SignInNeeded);
        assert_eq!(
            RetryPolicy::default().next_step(1, &refused, 1.0),
            NextStep::EndBurst,
            "no second attempt in this burst: nothing changes until its person signs in"
        );
        // The plain ended session is not "someone else".
        assert_eq!(
            answered(401, None).sign_in_needed(),
            Some(SignInNeeded::SessionEnded)
        );
        assert_eq!(answered(409, None).sign_in_needed(), None);
    }

    #[test]
    fn a_burst_ends_after_its_fifth_recoverable_failure() {
        let policy = RetryPolicy::default();
        assert!(matches!(
            policy.next_step(4, &unreachable(), 1.0),
            NextStep::RetryAfter(_)
        ));
        assert_eq!(policy.next_step(5, &unreachable(), 1.0), NextStep::EndBurst);
    }

    #[test]
    fn a_permanent_refusal_is_never_retried_even_on_the_first_attempt() {
        assert_eq!(
            RetryPolicy::default().next_step(1, &answered(422, None), 1.0),
            NextStep::GiveUp
        );
    }
}
