//! The answer stored with a key: status, headers and the exact body bytes, so a repeat
//! of the request gets the same answer byte for byte.

use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use super::Fingerprint;

/// An answer as stored: replayed exactly, with `Idempotent-Replayed: true` added.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredAnswer {
    pub status: u16,
    /// Headers that belong to the answer (`Content-Type`, `Location`, `ETag`…).
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl StoredAnswer {
    /// A JSON answer.
    pub fn json(
        status: StatusCode,
        value: &impl Serialize,
        mut headers: Vec<(String, String)>,
    ) -> serde_json::Result<Self> {
        let body = serde_json::to_vec(value)?;
        headers.insert(0, ("Content-Type".into(), "application/json".into()));
        Ok(Self {
            status: status.as_u16(),
            headers,
            body,
        })
    }

    /// An answer with no body (a redirect, a 204).
    pub fn empty(status: StatusCode, headers: Vec<(String, String)>) -> Self {
        Self {
            status: status.as_u16(),
            headers,
            body: Vec::new(),
        }
    }

    /// The headers as the database keeps them (a JSON list of pairs).
    pub fn headers_json(&self) -> String {
        serde_json::to_string(&self.headers).unwrap_or_else(|_| "[]".to_owned())
    }

    /// An answer read back from the database.
    pub fn from_stored(status: i64, headers_json: &str, body: Vec<u8>) -> anyhow::Result<Self> {
        let headers = serde_json::from_str(headers_json)
            .map_err(|e| anyhow::Error::new(e).context("a stored answer's headers"))?;
        Ok(Self {
            status: u16::try_from(status)?,
            headers,
            body,
        })
    }
}

/// What a key already holds: the fingerprint of the request that used it, and the answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavedAnswer {
    pub fingerprint: Fingerprint,
    pub answer: StoredAnswer,
}

impl SavedAnswer {
    /// The replay for a request with `fingerprint`; `None` when the key was used for
    /// another request (422 `idempotency-key-reused`).
    pub fn replay_for(self, fingerprint: &Fingerprint) -> Option<Answer> {
        (self.fingerprint == *fingerprint).then_some(Answer {
            stored: self.answer,
            replayed: true,
        })
    }
}

/// An answer on its way to the client.
#[derive(Clone, Debug)]
pub struct Answer {
    pub stored: StoredAnswer,
    /// A repeat of an earlier request: sent with `Idempotent-Replayed: true`.
    pub replayed: bool,
}

impl IntoResponse for Answer {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.stored.status).unwrap_or(StatusCode::OK);
        let mut response = (status, self.stored.body).into_response();
        let headers = response.headers_mut();
        headers.remove(header::CONTENT_TYPE);
        for (name, value) in &self.stored.headers {
            if let (Ok(name), Ok(value)) = (
                HeaderName::try_from(name.as_str()),
                HeaderValue::try_from(value.as_str()),
            ) {
                headers.insert(name, value);
            }
        }
        if self.replayed {
            headers.insert(
                app::api::IDEMPOTENT_REPLAYED_HEADER,
                HeaderValue::from_static("true"),
            );
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_answer_reads_back_what_was_written() {
        let answer = StoredAnswer::json(
            StatusCode::CREATED,
            &serde_json::json!({"a": 1}),
            vec![("Location".into(), "/api/notes/x".into())],
        )
        .unwrap();
        let back =
            StoredAnswer::from_stored(201, &answer.headers_json(), answer.body.clone()).unwrap();
        assert_eq!(back, answer);
    }

    #[test]
    fn a_saved_answer_is_refused_to_a_different_request() {
        let saved = SavedAnswer {
            fingerprint: Fingerprint::from_stored("a".into()),
            answer: StoredAnswer::empty(StatusCode::NO_CONTENT, vec![]),
        };
        assert!(
            saved
                .clone()
                .replay_for(&Fingerprint::from_stored("b".into()))
                .is_none()
        );
        assert!(
            saved
                .replay_for(&Fingerprint::from_stored("a".into()))
                .unwrap()
                .replayed
        );
    }
}
