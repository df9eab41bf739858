//! One attempt over `fetch` (gloo-net), with a client-side timeout that aborts it.

use std::time::{Duration, SystemTime};

use futures::future::{Either, select};
use gloo_net::http::{Request, Response};
use gloo_timers::future::TimeoutFuture;

use crate::api::{
    IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, NOTES_PATH, NewNote, Note, Problem,
};
use crate::save::retry_policy::{AttemptOutcome, parse_retry_after};
use crate::save::sender::{Clock, Transport};

/// `POST /api/notes` from the page.
pub struct FetchTransport {
    /// How long one attempt may take before it counts as "no answer".
    pub timeout: Duration,
}

impl Default for FetchTransport {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(10),
        }
    }
}

impl Transport for FetchTransport {
    async fn send(&self, key: &str, note: &NewNote) -> AttemptOutcome {
        let controller = web_sys::AbortController::new().ok();
        let signal = controller.as_ref().map(|c| c.signal());
        let request = match Request::post(NOTES_PATH)
            .header(IDEMPOTENCY_KEY_HEADER, key)
            .abort_signal(signal.as_ref())
            .json(note)
        {
            Ok(request) => request,
            Err(error) => {
                return AttemptOutcome::Network {
                    reason: error.to_string(),
                };
            }
        };
        let sending = std::pin::pin!(request.send());
        let timeout = TimeoutFuture::new(self.timeout.as_millis().min(u32::MAX as u128) as u32);
        match select(sending, timeout).await {
            Either::Left((Ok(response), _)) => read_answer(response).await,
            Either::Left((Err(error), _)) => AttemptOutcome::Network {
                reason: error.to_string(),
            },
            Either::Right(((), _)) => {
                if let Some(controller) = controller {
                    controller.abort();
                }
                AttemptOutcome::TimedOut
            }
        }
    }
}

async fn read_answer(response: Response) -> AttemptOutcome {
    let status = response.status();
    if (200..300).contains(&status) {
        let replayed = response
            .headers()
            .get(IDEMPOTENT_REPLAYED_HEADER)
            .as_deref()
            == Some("true");
        return match response.json::<Note>().await {
            Ok(note) => AttemptOutcome::Saved { note, replayed },
            // The body was cut off on the way: the note is stored, the answer is not
            // readable. A retry with the same key gets the replay.
            Err(error) => AttemptOutcome::Network {
                reason: format!("unreadable answer: {error}"),
            },
        };
    }
    let retry_after = response
        .headers()
        .get("retry-after")
        .and_then(|value| parse_retry_after(&value, now()));
    let problem = response.json::<Problem>().await.ok();
    AttemptOutcome::Answered {
        status,
        retry_after,
        problem,
    }
}

/// The wall clock from JavaScript (`SystemTime::now` panics in wasm32-unknown-unknown).
fn now() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_millis(js_sys::Date::now() as u64)
}

/// Sleeps on a browser timer.
pub struct TimerClock;

impl Clock for TimerClock {
    async fn sleep(&self, delay: Duration) {
        gloo_timers::future::sleep(delay).await;
    }
}
