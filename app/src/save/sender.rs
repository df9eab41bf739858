//! One burst of attempts for one intent: send, ask the policy, sleep, send again with the
//! same key. Generic over the transport and the clock, so the browser (fetch and
//! gloo-timers) and the native tests (an HTTP client and a fake clock) run this same code.

use std::future::Future;
use std::time::Duration;

use super::intent::SaveIntent;
use super::outcome::{AttemptOutcome, WriteAnswer};
use super::retry_policy::{NextStep, RetryPolicy};
use crate::api::Problem;

/// Makes one attempt: the intent's request, with its key.
pub trait Transport {
    fn send(&self, intent: &SaveIntent) -> impl Future<Output = AttemptOutcome>;
}

/// Waits. The browser sleeps on a timer; tests record the delay and return at once.
pub trait Clock {
    fn sleep(&self, delay: Duration) -> impl Future<Output = ()>;
}

/// What a burst reports while it runs, so the UI can show "sending" or "retrying in N s".
#[derive(Clone, Debug, PartialEq)]
pub enum BurstEvent {
    /// Attempt `n` of this burst is about to leave.
    AttemptStarted { n: u32 },
    /// Attempt `n` failed recoverably; the next one leaves after `delay`.
    RetryScheduled {
        n: u32,
        delay: Duration,
        outcome: Box<AttemptOutcome>,
    },
}

/// The environment a burst asks as it goes.
pub trait BurstHooks {
    /// While this is false no attempt is spent (`navigator.onLine`).
    fn is_online(&self) -> bool {
        true
    }
    /// A random factor in [0.5, 1] for the backoff.
    fn jitter(&mut self) -> f64;
    /// Progress, for the UI and for persisting the attempt count.
    fn on_event(&mut self, _event: BurstEvent) {}
}

/// How a burst ended.
#[derive(Clone, Debug, PartialEq)]
pub enum BurstEnd {
    /// The server holds the write; `replayed` when the answer was a replay.
    Saved { answer: WriteAnswer, replayed: bool },
    /// Every attempt of the burst failed recoverably; the last outcome says why.
    Waiting { last: AttemptOutcome },
    /// The browser is offline: the burst stopped without spending an attempt.
    Offline,
    /// The payload was refused; the problem says why. Never resend it unchanged.
    Failed { problem: Problem },
}

/// Drives bursts of attempts with one transport, clock and policy.
pub struct Sender<T, C> {
    pub transport: T,
    pub clock: C,
    pub policy: RetryPolicy,
}

impl<T: Transport, C: Clock> Sender<T, C> {
    pub fn new(transport: T, clock: C, policy: RetryPolicy) -> Self {
        Self {
            transport,
            clock,
            policy,
        }
    }

    /// Runs one burst for `intent`: at most `policy.burst_attempts` attempts, all with the
    /// intent's own key and payload.
    pub async fn run_burst(&self, intent: &SaveIntent, hooks: &mut impl BurstHooks) -> BurstEnd {
        let mut n = 0;
        loop {
            if !hooks.is_online() {
                return BurstEnd::Offline;
            }
            n += 1;
            hooks.on_event(BurstEvent::AttemptStarted { n });
            let outcome = self.transport.send(intent).await;
            let jitter = hooks.jitter();
            match self.policy.next_step(n, &outcome, jitter) {
                NextStep::Finish => {
                    return match outcome {
                        AttemptOutcome::Saved { answer, replayed } => {
                            BurstEnd::Saved { answer, replayed }
                        }
                        // A 2xx without a readable note cannot be shown as saved: treat it
                        // as a lost answer, and the next burst will get the replay.
                        other => BurstEnd::Waiting { last: other },
                    };
                }
                NextStep::GiveUp => {
                    return BurstEnd::Failed {
                        problem: outcome.refusal(),
                    };
                }
                NextStep::EndBurst => return BurstEnd::Waiting { last: outcome },
                NextStep::RetryAfter(delay) => {
                    hooks.on_event(BurstEvent::RetryScheduled {
                        n,
                        delay,
                        outcome: Box::new(outcome),
                    });
                    self.clock.sleep(delay).await;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::collections::VecDeque;

    use super::*;
    use crate::api::ProblemSlug;
    use crate::save::outcome::WaitCause;
    use crate::save::waiting::WaitReason;

    /// Plays back scripted outcomes and records the key of every attempt.
    struct ScriptedTransport {
        script: RefCell<VecDeque<AttemptOutcome>>,
        keys: RefCell<Vec<String>>,
    }

    impl ScriptedTransport {
        fn new(script: Vec<AttemptOutcome>) -> Self {
            Self {
                script: RefCell::new(script.into()),
                keys: RefCell::default(),
            }
        }
    }

    impl Transport for ScriptedTransport {
        async fn send(&self, intent: &SaveIntent) -> AttemptOutcome {
            self.keys.borrow_mut().push(intent.key.clone());
            self.script
                .borrow_mut()
                .pop_front()
                .expect("the script ran out of outcomes")
        }
    }

    /// A fake clock: records each sleep and returns at once.
    #[derive(Default)]
    struct RecordingClock {
        slept: RefCell<Vec<Duration>>,
    }

    impl Clock for RecordingClock {
        async fn sleep(&self, delay: Duration) {
            self.slept.borrow_mut().push(delay);
        }
    }

    struct NoJitter {
        online: bool,
        events: Vec<BurstEvent>,
    }

    impl BurstHooks for NoJitter {
        fn is_online(&self) -> bool {
            self.online
        }
        fn jitter(&mut self) -> f64 {
            1.0
        }
        fn on_event(&mut self, event: BurstEvent) {
            self.events.push(event);
        }
    }

    fn hooks() -> NoJitter {
        NoJitter {
            online: true,
            events: Vec::new(),
        }
    }

    fn note() -> crate::api::Note {
        crate::api::Note {
            id: "n1".into(),
            title: "t".into(),
            body: "b".into(),
            written_at: "w".into(),
            created_at: "c".into(),
            updated_at: "u".into(),
            version: 1,
            trashed_at: None,
            conflict_of: None,
            tags: Vec::new(),
            pinned: false,
            html: None,
        }
    }

    fn intent() -> SaveIntent {
        SaveIntent::create("key-1".into(), "t", "b", "2026-01-01T00:00:00.000Z".into())
    }

    fn unreachable() -> AttemptOutcome {
        AttemptOutcome::Network {
            reason: "unreachable".into(),
        }
    }

    fn block_on<F: Future>(future: F) -> F::Output {
        futures::executor::block_on(future)
    }

    #[test]
    fn seed_drill_two_unreachable_failures_then_success_waits_half_a_second_then_one() {
        let transport = ScriptedTransport::new(vec![
            unreachable(),
            unreachable(),
            AttemptOutcome::Saved {
                answer: WriteAnswer::Created(note()),
                replayed: false,
            },
        ]);
        let sender = Sender::new(transport, RecordingClock::default(), RetryPolicy::default());
        let end = block_on(sender.run_burst(&intent(), &mut hooks()));
        assert_eq!(
            end,
            BurstEnd::Saved {
                answer: WriteAnswer::Created(note()),
                replayed: false
            }
        );
        assert_eq!(
            *sender.clock.slept.borrow(),
            [Duration::from_millis(500), Duration::from_millis(1_000)]
        );
        assert_eq!(
            sender.transport.keys.borrow().len(),
            3,
            "success on the third try"
        );
    }

    #[test]
    fn seed_drill_a_quota_like_refusal_is_not_retried_at_all() {
        let quota = AttemptOutcome::Answered {
            status: 402,
            retry_after: None,
            problem: None,
        };
        let sender = Sender::new(
            ScriptedTransport::new(vec![quota]),
            RecordingClock::default(),
            RetryPolicy::default(),
        );
        let end = block_on(sender.run_burst(&intent(), &mut hooks()));
        assert!(matches!(end, BurstEnd::Failed { problem } if problem.status == 402));
        assert!(sender.clock.slept.borrow().is_empty());
        assert_eq!(sender.transport.keys.borrow().len(), 1);
    }

    #[test]
    fn a_write_refused_for_someone_else_waits_after_one_attempt_and_is_not_failed() {
        let refused = AttemptOutcome::Answered {
            status: 409,
            retry_after: None,
            problem: Some(Problem {
                kind: ProblemSlug::SignedInAsSomeoneElse.type_uri(),
                title: "Conflict".into(),
                status: 409,
                detail: "d".into(),
            }),
        };
        let sender = Sender::new(
            ScriptedTransport::new(vec![refused.clone()]),
            RecordingClock::default(),
            RetryPolicy::default(),
        );
        let end = block_on(sender.run_burst(&intent(), &mut hooks()));
        assert_eq!(
            end,
            BurstEnd::Waiting {
                last: refused.clone()
            }
        );
        assert_eq!(sender.transport.keys.borrow().len(), 1);
        assert!(
            WaitReason::after(&refused)
                .sentence()
                .contains("someone else is signed in")
        );
    }

    #[test]
    fn every_attempt_of_a_burst_carries_the_intents_own_key() {
        let sender = Sender::new(
            ScriptedTransport::new(vec![unreachable(); 5]),
            RecordingClock::default(),
            RetryPolicy::default(),
        );
        let end = block_on(sender.run_burst(&intent(), &mut hooks()));
        assert_eq!(
            end,
            BurstEnd::Waiting {
                last: unreachable()
            }
        );
        assert_eq!(
            *sender.transport.keys.borrow(),
            vec!["key-1".to_string(); 5]
        );
        assert_eq!(
            sender.clock.slept.borrow().len(),
            4,
            "no sleep after the last attempt"
        );
    }

    #[test]
    fn a_retry_after_longer_than_the_backoff_sets_the_wait() {
        let busy = AttemptOutcome::Answered {
            status: 503,
            retry_after: Some(Duration::from_secs(2)),
            problem: None,
        };
        let sender = Sender::new(
            ScriptedTransport::new(vec![
                busy,
                AttemptOutcome::Saved {
                    answer: WriteAnswer::Created(note()),
                    replayed: true,
                },
            ]),
            RecordingClock::default(),
            RetryPolicy::default(),
        );
        let end = block_on(sender.run_burst(&intent(), &mut hooks()));
        assert_eq!(
            end,
            BurstEnd::Saved {
                answer: WriteAnswer::Created(note()),
                replayed: true
            }
        );
        assert_eq!(*sender.clock.slept.borrow(), [Duration::from_secs(2)]);
    }

    #[test]
    fn a_full_disk_is_retried_with_the_same_key_after_its_retry_after_and_says_why() {
        let full = AttemptOutcome::Answered {
            status: 507,
            retry_after: Some(Duration::from_secs(30)),
            problem: None,
        };
        let sender = Sender::new(
            ScriptedTransport::new(vec![
                full.clone(),
                full.clone(),
                AttemptOutcome::Saved {
                    answer: WriteAnswer::Created(note()),
                    replayed: false,
                },
            ]),
            RecordingClock::default(),
            RetryPolicy::default(),
        );
        let mut hooks = hooks();
        let end = block_on(sender.run_burst(&intent(), &mut hooks));
        assert!(matches!(end, BurstEnd::Saved { .. }), "{end:?}");
        assert_eq!(
            *sender.transport.keys.borrow(),
            vec!["key-1".to_string(); 3]
        );
        assert_eq!(
            *sender.clock.slept.borrow(),
            [Duration::from_secs(30), Duration::from_secs(30)]
        );
        let retry = hooks.events.iter().find_map(|event| match event {
            BurstEvent::RetryScheduled { outcome, .. } => WaitCause::of(outcome),
            _ => None,
        });
        assert_eq!(retry, Some(WaitCause::StorageFull));
        assert_eq!(
            WaitReason::after(&full),
            WaitReason::Server(WaitCause::StorageFull)
        );
    }

    #[test]
    fn no_attempt_is_spent_while_offline() {
        let sender = Sender::new(
            ScriptedTransport::new(vec![]),
            RecordingClock::default(),
            RetryPolicy::default(),
        );
        let mut offline = NoJitter {
            online: false,
            events: Vec::new(),
        };
        assert_eq!(
            block_on(sender.run_burst(&intent(), &mut offline)),
            BurstEnd::Offline
        );
        assert!(sender.transport.keys.borrow().is_empty());
        assert!(offline.events.is_empty());
    }

    #[test]
    fn the_burst_reports_each_attempt_and_each_scheduled_retry() {
        let sender = Sender::new(
            ScriptedTransport::new(vec![
                unreachable(),
                AttemptOutcome::Saved {
                    answer: WriteAnswer::Created(note()),
                    replayed: false,
                },
            ]),
            RecordingClock::default(),
            RetryPolicy::default(),
        );
        let mut hooks = hooks();
        block_on(sender.run_burst(&intent(), &mut hooks));
        assert_eq!(
            hooks.events,
            [
                BurstEvent::AttemptStarted { n: 1 },
                BurstEvent::RetryScheduled {
                    n: 1,
                    delay: Duration::from_millis(500),
                    outcome: Box::new(unreachable())
                },
                BurstEvent::AttemptStarted { n: 2 },
            ]
        );
    }
}
