//! The save transport for native programs (the integration tests and the chaos driver):
//! one request with reqwest, read by the same [`read_answer`] as the browser's fetch.

use std::time::SystemTime;

use super::intent::{SaveIntent, WriteMethod};
use super::outcome::{AttemptOutcome, RawAnswer, read_answer};
use super::sender::Transport;
use crate::api::{IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, OWNER_HEADER};

/// Sends intents to the server at `base` (`http://host:port`), signed in with `session`
/// (the session token) when there is one, naming `owner` as the person they are for
/// when set (as the page does).
#[derive(Clone)]
pub struct HttpTransport {
    pub client: reqwest::Client,
    pub base: String,
    pub session: Option<String>,
    pub owner: Option<String>,
}

impl Transport for HttpTransport {
    async fn send(&self, intent: &SaveIntent) -> AttemptOutcome {
        let request = intent.request();
        let method = match request.method {
            WriteMethod::Post => reqwest::Method::POST,
            WriteMethod::Patch => reqwest::Method::PATCH,
            WriteMethod::Delete => reqwest::Method::DELETE,
        };
        let mut builder = self
            .client
            .request(method, format!("{}{}", self.base, request.path))
            .header(IDEMPOTENCY_KEY_HEADER, &intent.key)
            .header("content-type", "application/json");
        if let Some(owner) = &self.owner {
            builder = builder.header(OWNER_HEADER, owner);
        }
        if let Some(token) = &self.session {
            builder = builder.header("cookie", format!("oncenote_session={token}"));
        }
        let sent = builder.body(request.body).send().await;
        let response = match sent {
            Ok(response) => response,
            Err(error) if error.is_timeout() => return AttemptOutcome::TimedOut,
            Err(error) => {
                return AttemptOutcome::Network {
                    reason: error.to_string(),
                };
            }
        };
        let status = response.status().as_u16();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let (retry_after, replayed) = (header("retry-after"), header(IDEMPOTENT_REPLAYED_HEADER));
        let body = match response.bytes().await {
            Ok(body) => body,
            // The answer was cut off on the way: as good as lost.
            Err(error) if error.is_timeout() => return AttemptOutcome::TimedOut,
            Err(error) => {
                return AttemptOutcome::Network {
                    reason: error.to_string(),
                };
            }
        };
        read_answer(
            RawAnswer {
                status,
                retry_after: retry_after.as_deref(),
                replayed: replayed.as_deref(),
                body: &body,
            },
            intent.answer_shape(),
            SystemTime::now(),
        )
    }
}
