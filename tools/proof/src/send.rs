//! Sending one intent until it is done, as the page does: bursts of the client's own
//! save core under one key (a new burst standing for a reload or "Retry now"), with the
//! counts of how attempts ended and the progress the kill scheduler watches.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::AtomicUsize;
use std::time::{Duration, Instant};

use app::save::http_transport::HttpTransport;
use app::save::intent::SaveIntent;
use app::save::outcome::{AttemptOutcome, WriteAnswer};
use app::save::sender::{BurstEnd, BurstEvent, BurstHooks, Clock, Sender};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// How attempts ended, over the whole run.
#[derive(Clone, Debug, Default)]
pub struct OutcomeCounts {
    pub attempts: u64,
    pub saved_first_time: u64,
    pub saved_by_replay: u64,
    pub network_errors: u64,
    pub timeouts: u64,
    pub busy_503: u64,
    pub in_use_409: u64,
    pub other_answers: BTreeMap<u16, u64>,
}

impl OutcomeCounts {
    fn count_failure(&mut self, outcome: &AttemptOutcome) {
        match outcome {
            AttemptOutcome::Network { .. } => self.network_errors += 1,
            AttemptOutcome::TimedOut => self.timeouts += 1,
            AttemptOutcome::Answered { status: 503, .. } => self.busy_503 += 1,
            AttemptOutcome::Answered { status: 409, .. } => self.in_use_409 += 1,
            AttemptOutcome::Answered { status, .. } => {
                *self.other_answers.entry(*status).or_default() += 1
            }
            AttemptOutcome::Saved { .. } => {}
        }
    }

    /// Attempts that were retried (every failed attempt but a burst's last).
    pub fn retries(&self) -> u64 {
        self.network_errors
            + self.timeouts
            + self.busy_503
            + self.in_use_409
            + self.other_answers.values().sum::<u64>()
    }
}

/// Progress shared with the kill scheduler (which runs on another thread).
#[derive(Default)]
pub struct Progress {
    pub acked: AtomicUsize,
    /// Keys of acknowledged creates.
    pub acked_keys: Mutex<Vec<String>>,
    /// Keys of acknowledged later writes (each made one revision).
    pub acked_follow_up_keys: Mutex<Vec<String>>,
}

pub struct TokioClock;

impl Clock for TokioClock {
    async fn sleep(&self, delay: Duration) {
        tokio::time::sleep(delay).await;
    }
}

struct ClientHooks<'a> {
    rng: StdRng,
    counts: &'a RefCell<OutcomeCounts>,
    attempts: u32,
}

impl BurstHooks for ClientHooks<'_> {
    fn jitter(&mut self) -> f64 {
        self.rng.random_range(0.5..=1.0)
    }

    fn on_event(&mut self, event: BurstEvent) {
        let mut counts = self.counts.borrow_mut();
        match event {
            BurstEvent::AttemptStarted { .. } => {
                counts.attempts += 1;
                self.attempts += 1;
            }
            BurstEvent::RetryScheduled { outcome, .. } => counts.count_failure(&outcome),
        }
    }
}

/// How sending one intent until it is done ended.
pub enum Done {
    Saved {
        answer: Box<WriteAnswer>,
        /// Saved answers to several senders that named different notes.
        disagreeing: u32,
    },
    Refused(String),
    OutOfTime,
}

/// Sends `intent` from `senders` senders at once, burst after burst (as reloads and
/// Retry now would), until it is saved or refused or the deadline passes.
pub async fn send_until_done(
    sender: &Sender<HttpTransport, TokioClock>,
    rng: &mut StdRng,
    counts: &RefCell<OutcomeCounts>,
    intent: &SaveIntent,
    deadline: Instant,
    senders: u32,
    tally: &mut (u32, u32),
) -> Done {
    while Instant::now() < deadline {
        tally.1 += 1;
        // One burst per sender, all at once, all with the intent's one key.
        let bursts = (0..senders).map(|_| {
            let mut hooks = ClientHooks {
                rng: StdRng::seed_from_u64(rng.random()),
                counts,
                attempts: 0,
            };
            async move {
                let end = sender.run_burst(intent, &mut hooks).await;
                (end, hooks.attempts)
            }
        });
        let ends = futures::future::join_all(bursts).await;
        tally.0 += ends.iter().map(|(_, attempts)| attempts).sum::<u32>();
        let saved: Vec<(&WriteAnswer, bool)> = ends
            .iter()
            .filter_map(|(end, _)| match end {
                BurstEnd::Saved { answer, replayed } => Some((answer, *replayed)),
                _ => None,
            })
            .collect();
        if let Some((answer, _)) = saved.first() {
            let id = |a: &WriteAnswer| a.note().map(|n| n.id.clone());
            let disagreeing = saved
                .iter()
                .filter(|(other, _)| id(other) != id(answer))
                .count() as u32;
            let mut counts = counts.borrow_mut();
            for (_, replayed) in &saved {
                if *replayed {
                    counts.saved_by_replay += 1;
                } else {
                    counts.saved_first_time += 1;
                }
            }
            return Done::Saved {
                answer: Box::new((*answer).clone()),
                disagreeing,
            };
        }
        if let Some(problem) = ends.iter().find_map(|(end, _)| match end {
            BurstEnd::Failed { problem } => Some(problem),
            _ => None,
        }) {
            return Done::Refused(format!(
                "{} {}: {}",
                problem.status,
                problem.slug(),
                problem.detail
            ));
        }
        for (end, _) in &ends {
            match end {
                BurstEnd::Waiting { last } => counts.borrow_mut().count_failure(last),
                BurstEnd::Offline => unreachable!("the virtual clients are always online"),
                _ => {}
            }
        }
        // What the page does on a reload or "Retry now": a new burst, same key.
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Done::OutOfTime
}
