//! One attempt over `fetch` (gloo-net). The timeout covers the whole attempt — headers
//! and the entire body — so an answer whose body never ends cannot hang the burst (and
//! with it this tab's lock and queue); when it runs out the request is aborted.

use std::time::{Duration, SystemTime};

use futures::future::{Either, select};
use gloo_net::http::{Method, RequestBuilder};
use gloo_timers::future::TimeoutFuture;

use crate::api::{IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, OWNER_HEADER};
use crate::save::intent::{SaveIntent, WriteMethod};
use crate::save::outcome::{AttemptOutcome, RawAnswer, read_answer};
use crate::save::sender::{Clock, Transport};

/// The page's save transport.
pub struct FetchTransport {
    /// How long one attempt may take, from sending to the last byte of the answer.
    pub timeout: Duration,
    /// The person whose intents these are (this page's person, whose part of the storage
    /// holds them). Every attempt names them, so a write is never stored for whoever
    /// else has signed in on this browser since.
    pub owner: Option<String>,
}

impl FetchTransport {
    pub fn for_owner(owner: Option<String>) -> Self {
        Self {
            timeout: Duration::from_secs(10),
            owner,
        }
    }
}

impl Transport for FetchTransport {
    async fn send(&self, intent: &SaveIntent) -> AttemptOutcome {
        let controller = web_sys::AbortController::new().ok();
        let signal = controller.as_ref().map(|c| c.signal());
        let attempt = std::pin::pin!(attempt(intent, self.owner.as_deref(), signal.as_ref()));
        let timeout = TimeoutFuture::new(self.timeout.as_millis().min(u32::MAX as u128) as u32);
        match select(attempt, timeout).await {
            Either::Left((outcome, _)) => outcome,
            Either::Right(((), _)) => {
                if let Some(controller) = controller {
                    controller.abort();
                }
                AttemptOutcome::TimedOut
            }
        }
    }
}

/// Sends the intent's request and reads the whole answer.
async fn attempt(
    intent: &SaveIntent,
    owner: Option<&str>,
    signal: Option<&web_sys::AbortSignal>,
) -> AttemptOutcome {
    let wire = intent.request();
    let network = |error: gloo_net::Error| AttemptOutcome::Network {
        reason: error.to_string(),
    };
    let method = match wire.method {
        WriteMethod::Post => Method::POST,
        WriteMethod::Patch => Method::PATCH,
        WriteMethod::Delete => Method::DELETE,
    };
    let mut builder = RequestBuilder::new(&wire.path)
        .method(method)
        .header(IDEMPOTENCY_KEY_HEADER, &intent.key)
        .header("Content-Type", "application/json");
    if let Some(owner) = owner {
        builder = builder.header(OWNER_HEADER, owner);
    }
    let request = builder.abort_signal(signal).body(wire.body);
    let response = match request {
        Ok(request) => match request.send().await {
            Ok(response) => response,
            Err(error) => return network(error),
        },
        Err(error) => return network(error),
    };
    let headers = response.headers();
    let (retry_after, replayed) = (
        headers.get("retry-after"),
        headers.get(IDEMPOTENT_REPLAYED_HEADER),
    );
    let body = match response.binary().await {
        Ok(body) => body,
        // The answer broke off mid-body: as good as lost; the retry gets the replay.
        Err(error) => return network(error),
    };
    read_answer(
        RawAnswer {
            status: response.status(),
            retry_after: retry_after.as_deref(),
            replayed: replayed.as_deref(),
            body: &body,
        },
        intent.answer_shape(),
        now(),
    )
}

/// The wall clock from JavaScript (`SystemTime::now` panics in wasm32-unknown-unknown).
pub fn now() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_millis(js_sys::Date::now() as u64)
}

/// Sleeps on a browser timer.
pub struct TimerClock;

impl Clock for TimerClock {
    async fn sleep(&self, delay: Duration) {
        gloo_timers::future::sleep(delay).await;
    }
}
