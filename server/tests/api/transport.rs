//! The faults the seed lessons inject around the client's native transport: an answer lost after the server committed, a new key per attempt.

use std::cell::{Cell, RefCell};
use std::time::Duration;

pub use app::save::http_transport::HttpTransport;
use app::save::intent::SaveIntent;
use app::save::outcome::AttemptOutcome;
use app::save::sender::{BurstHooks, Clock, Transport};

/// Lets the server answer, then loses the first `lose` answers on the way back
/// (the server committed; the client sees a network error). Records every key sent.
pub struct LosesAnswers<T> {
    pub inner: T,
    lose: Cell<usize>,
    pub keys_sent: RefCell<Vec<String>>,
}

impl<T> LosesAnswers<T> {
    pub fn new(inner: T, lose: usize) -> Self {
        Self {
            inner,
            lose: Cell::new(lose),
            keys_sent: RefCell::default(),
        }
    }
}

impl<T: Transport> Transport for LosesAnswers<T> {
    async fn send(&self, intent: &SaveIntent) -> AttemptOutcome {
        self.keys_sent.borrow_mut().push(intent.key.clone());
        let outcome = self.inner.send(intent).await;
        match self.lose.get() {
            0 => outcome,
            n => {
                self.lose.set(n - 1);
                AttemptOutcome::Network {
                    reason: "response lost after the server answered".into(),
                }
            }
        }
    }
}

/// The seed's unsafe client: a fresh key for every attempt instead of one per intent.
pub struct NewKeyPerAttempt<T>(pub T);

impl<T: Transport> Transport for NewKeyPerAttempt<T> {
    async fn send(&self, intent: &SaveIntent) -> AttemptOutcome {
        let fresh = SaveIntent {
            key: uuid::Uuid::new_v4().to_string(),
            ..intent.clone()
        };
        self.0.send(&fresh).await
    }
}

/// Returns at once and remembers how long it was asked to sleep.
#[derive(Default)]
pub struct InstantClock {
    pub slept: RefCell<Vec<Duration>>,
}

impl Clock for InstantClock {
    async fn sleep(&self, delay: Duration) {
        self.slept.borrow_mut().push(delay);
    }
}

/// Always online, no jitter (the drills state delays before jitter).
pub struct SteadyHooks;

impl BurstHooks for SteadyHooks {
    fn jitter(&mut self) -> f64 {
        1.0
    }
}
