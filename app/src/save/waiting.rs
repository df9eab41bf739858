//! Why an intent waits for the next burst, kept with the intent as a cause and put into
//! words only when the list shows it (so a stored intent never holds a UI sentence).

use serde::{Deserialize, Serialize};

use super::outcome::{AttemptOutcome, SignInNeeded, WaitCause};

/// Why a burst ended with the intent still unsent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WaitReason {
    /// The browser was offline: the burst stopped without spending an attempt.
    Offline,
    /// No HTTP answer: connection refused or reset, DNS, an answer lost or unreadable.
    Unreachable,
    /// The client-side timeout for an attempt ran out.
    TimedOut,
    /// The server said why it cannot take writes for now (a full disk, a database down).
    Server(WaitCause),
    /// Its person must sign in again (kept apart from the other reasons by the drain,
    /// which shows such an intent as signed out).
    SignIn(SignInNeeded),
    /// Any other answer: its status, and the problem's detail when it sent one.
    Answered { status: u16, detail: Option<String> },
    /// The sentence an intent stored by an earlier release carries instead of a cause.
    Earlier(String),
}

impl WaitReason {
    /// The reason the last outcome of a burst gives.
    pub fn after(last: &AttemptOutcome) -> Self {
        if let Some(cause) = WaitCause::of(last) {
            return WaitReason::Server(cause);
        }
        if let Some(who) = last.sign_in_needed() {
            return WaitReason::SignIn(who);
        }
        match last {
            // A saved outcome never ends a burst waiting (it ends it saved); a 2xx whose
            // answer was unreadable arrives as `Network`.
            AttemptOutcome::Saved { .. } | AttemptOutcome::Network { .. } => {
                WaitReason::Unreachable
            }
            AttemptOutcome::TimedOut => WaitReason::TimedOut,
            AttemptOutcome::Answered {
                status, problem, ..
            } => WaitReason::Answered {
                status: *status,
                detail: problem.as_ref().map(|p| p.detail.clone()),
            },
        }
    }

    /// What the person reads after "waiting — ".
    pub fn sentence(&self) -> String {
        let retried = |what: &str| format!("{what}; sent again by itself, or now with Retry now");
        match self {
            WaitReason::Offline => "offline; sent when the network is back".into(),
            // The cause's sentence says already that the note will be sent.
            WaitReason::Server(cause) => format!("{}; or now with Retry now", cause.sentence()),
            // The browser's own words ("TypeError: Failed to fetch") help nobody.
            WaitReason::Unreachable => retried("the server could not be reached"),
            WaitReason::TimedOut => retried("the server did not answer in time"),
            WaitReason::SignIn(SignInNeeded::SessionEnded) => {
                retried("your session ended; sign in again to send it")
            }
            WaitReason::SignIn(SignInNeeded::SomeoneElseSignedIn) => retried(
                "someone else is signed in on this browser now; sign in again as yourself to send it",
            ),
            WaitReason::Answered {
                status,
                detail: Some(detail),
            } => retried(&format!("{status}: {detail}")),
            WaitReason::Answered {
                status,
                detail: None,
            } => retried(&format!("the server answered {status}")),
            WaitReason::Earlier(sentence) => sentence.clone(),
        }
    }
}

/// How a waiting intent's reason is stored: the cause under `cause`, and the sentence the
/// list shows under `reason` — the only field the release before reads, and the only one
/// an intent it stored carries (read back as [`WaitReason::Earlier`]).
pub(super) mod stored {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::WaitReason;

    #[derive(Serialize)]
    struct Written<'a> {
        reason: String,
        cause: &'a WaitReason,
    }

    #[derive(Deserialize)]
    struct Read {
        #[serde(default)]
        reason: Option<String>,
        /// Read apart: a cause a later release added is not one this version knows.
        #[serde(default)]
        cause: Option<serde_json::Value>,
    }

    pub fn serialize<S: Serializer>(cause: &WaitReason, serializer: S) -> Result<S::Ok, S::Error> {
        Written {
            reason: cause.sentence(),
            cause,
        }
        .serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<WaitReason, D::Error> {
        let read = Read::deserialize(deserializer)?;
        let known = read
            .cause
            .and_then(|cause| WaitReason::deserialize(cause).ok());
        match (known, read.reason) {
            (Some(cause), _) => Ok(cause),
            // Written by the release before (a sentence only), or with a cause this
            // version does not know: the sentence says it.
            (None, Some(sentence)) => Ok(WaitReason::Earlier(sentence)),
            (None, None) => Err(serde::de::Error::missing_field("reason")),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::api::{Problem, ProblemSlug};

    #[test]
    fn each_reason_reads_as_the_list_has_always_said_it() {
        let unreachable = AttemptOutcome::Network {
            reason: "TypeError: Failed to fetch".into(),
        };
        assert_eq!(
            WaitReason::after(&unreachable).sentence(),
            "the server could not be reached; sent again by itself, or now with Retry now"
        );
        let full = AttemptOutcome::Answered {
            status: 507,
            retry_after: Some(Duration::from_secs(30)),
            problem: None,
        };
        assert_eq!(
            WaitReason::after(&full).sentence(),
            "the server's disk is full — your note is kept here and will be sent; or now with Retry now"
        );
        let refused = AttemptOutcome::Answered {
            status: 502,
            retry_after: None,
            problem: Some(Problem {
                kind: ProblemSlug::Internal.type_uri(),
                title: "t".into(),
                status: 502,
                detail: "bad gateway".into(),
            }),
        };
        assert_eq!(
            WaitReason::after(&refused).sentence(),
            "502: bad gateway; sent again by itself, or now with Retry now"
        );
        assert_eq!(
            WaitReason::Offline.sentence(),
            "offline; sent when the network is back"
        );
    }

    #[test]
    fn a_reason_is_stored_as_a_cause_not_a_sentence() {
        let reason = WaitReason::Server(WaitCause::StorageFull);
        let json = serde_json::to_string(&reason).unwrap();
        assert_eq!(json, r#"{"server":"storage-full"}"#);
        let read: WaitReason = serde_json::from_str(&json).unwrap();
        assert_eq!(read, reason);
    }
}
