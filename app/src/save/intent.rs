//! A save intent: one press of Save on one draft, with the idempotency key that every
//! attempt for it carries (PROTOCOL.md §Client 1).

use serde::{Deserialize, Serialize};

use crate::api::{NewNote, Problem};

/// Where an unsaved intent stands, as the list shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum IntentState {
    /// Made (and stored) but no attempt is running: it is sent at the next burst.
    Queued,
    /// An attempt is in flight.
    Sending,
    /// The next attempt of this burst starts at `at_ms` (milliseconds since the epoch).
    Retrying { at_ms: f64 },
    /// The burst ended without an answer; a new burst starts on `online`, page load,
    /// the tab becoming visible, or Retry now.
    Waiting { reason: String },
    /// The server refused the payload for good; only Edit or Discard can follow.
    Failed { problem: Problem },
}

/// One save intent, persisted in localStorage from before its first attempt until the
/// server acknowledged it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SaveIntent {
    pub key: String,
    pub title: String,
    pub body: String,
    pub written_at: String,
    /// Attempts spent on this intent so far, over all bursts.
    pub attempts: u32,
    pub state: IntentState,
}

impl SaveIntent {
    /// A new intent for a draft, with its own key.
    pub fn new(key: String, title: &str, body: &str, written_at: String) -> Self {
        Self {
            key,
            title: title.to_owned(),
            body: body.to_owned(),
            written_at,
            attempts: 0,
            state: IntentState::Queued,
        }
    }

    /// The request body of every attempt. The key is never sent with another payload.
    pub fn payload(&self) -> NewNote {
        NewNote {
            title: self.title.clone(),
            body: self.body.clone(),
            written_at: self.written_at.clone(),
        }
    }

    /// Whether this intent was made from exactly this draft.
    pub fn matches_draft(&self, title: &str, body: &str) -> bool {
        self.title == title && self.body == body
    }

    /// Failed intents wait for the person; every other state still wants to be sent.
    pub fn is_failed(&self) -> bool {
        matches!(self.state, IntentState::Failed { .. })
    }

    /// After a page load nothing is in flight any more: whatever was sending or
    /// scheduled is queued again (a failed intent stays failed).
    pub fn after_reload(mut self) -> Self {
        if matches!(
            self.state,
            IntentState::Sending | IntentState::Retrying { .. } | IntentState::Waiting { .. }
        ) {
            self.state = IntentState::Queued;
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn intent(state: IntentState) -> SaveIntent {
        SaveIntent {
            state,
            ..SaveIntent::new("k".into(), "t", "b", "2026-01-01T00:00:00.000Z".into())
        }
    }

    #[test]
    fn an_intent_survives_a_round_trip_through_json_unchanged() {
        let original = intent(IntentState::Retrying { at_ms: 12.5 });
        let json = serde_json::to_string(&original).unwrap();
        assert_eq!(serde_json::from_str::<SaveIntent>(&json).unwrap(), original);
    }

    #[test]
    fn a_reload_requeues_in_flight_intents_but_keeps_failed_ones_failed() {
        assert_eq!(
            intent(IntentState::Sending).after_reload().state,
            IntentState::Queued
        );
        let failed = IntentState::Failed {
            problem: Problem {
                kind: "/problems/validation-failed".into(),
                title: "t".into(),
                status: 422,
                detail: "d".into(),
            },
        };
        assert_eq!(intent(failed.clone()).after_reload().state, failed);
    }

    #[test]
    fn the_payload_carries_the_time_save_was_pressed() {
        assert_eq!(
            intent(IntentState::Queued).payload().written_at,
            "2026-01-01T00:00:00.000Z"
        );
    }
}
