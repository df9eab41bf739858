//! The save transport for native programs (the integration tests and the chaos driver):
//! one `POST /api/notes` with reqwest, classified exactly like the browser's fetch.

use std::time::SystemTime;

use super::retry_policy::{AttemptOutcome, parse_retry_after};
use super::sender::Transport;
use crate::api::{IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, NewNote, Note, Problem};

/// Posts notes to `url` (a full `http://…/api/notes`).
#[derive(Clone)]
pub struct HttpTransport {
    pub client: reqwest::Client,
    pub url: String,
}

impl Transport for HttpTransport {
    async fn send(&self, key: &str, note: &NewNote) -> AttemptOutcome {
        let sent = self
            .client
            .post(&self.url)
            .header(IDEMPOTENCY_KEY_HEADER, key)
            .json(note)
            .send()
            .await;
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
        if response.status().is_success() {
            let replayed = response
                .headers()
                .get(IDEMPOTENT_REPLAYED_HEADER)
                .is_some_and(|v| v == "true");
            return match response.json::<Note>().await {
                Ok(note) => AttemptOutcome::Saved { note, replayed },
                // The answer was cut off on the way: as good as lost.
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
