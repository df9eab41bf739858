//! The client core's transport over a native HTTP client, and the faults the seed
//! lessons inject: an answer lost after the server committed, a new key per attempt.

use std::cell::{Cell, RefCell};
use std::time::{Duration, SystemTime};

use app::api::{IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, NewNote, Note, Problem};
use app::save::retry_policy::{AttemptOutcome, parse_retry_after};
use app::save::sender::{BurstHooks, Clock, Transport};

/// `POST /api/notes` with reqwest, classified like the browser's fetch transport.
pub struct HttpTransport {
    pub client: reqwest::Client,
    pub url: String,
}

impl Transport for HttpTransport {
    async fn send(&self, key: &str, note: &NewNote) -> AttemptOutcome {
        let response = match self
            .client
            .post(&self.url)
            .header(IDEMPOTENCY_KEY_HEADER, key)
            .json(note)
            .send()
            .await
        {
            Ok(response) => response,
            Err(error) if error.is_timeout() => return AttemptOutcome::TimedOut,
            Err(error) => {
                return AttemptOutcome::Network {
                    reason: error.to_string(),
                };
            }
        };
        let status = response.status().as_u16();
        if response.status().is_success() {
            let replayed = response
                .headers()
                .get(IDEMPOTENT_REPLAYED_HEADER)
                .is_some_and(|v| v == "true");
            return match response.json::<Note>().await {
                Ok(note) => AttemptOutcome::Saved { note, replayed },
                Err(error) => AttemptOutcome::Network {
                    reason: error.to_string(),
                },
            };
        }
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| parse_retry_after(v, SystemTime::now()));
        let problem = response.json::<Problem>().await.ok();
        AttemptOutcome::Answered {
            status,
            retry_after,
            problem,
        }
    }
}

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
    async fn send(&self, key: &str, note: &NewNote) -> AttemptOutcome {
        self.keys_sent.borrow_mut().push(key.to_owned());
        let outcome = self.inner.send(key, note).await;
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
    async fn send(&self, _key: &str, note: &NewNote) -> AttemptOutcome {
        self.0.send(&uuid::Uuid::new_v4().to_string(), note).await
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
