//! What a press of Save does with the draft in the editor (PROTOCOL.md §Client 1, 6).

use serde::{Deserialize, Serialize};

use super::intent::{IntentState, SaveIntent};
use crate::api::Problem;

/// How the editor relates to an existing intent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Link {
    /// Save was pressed on this draft; nothing was typed since.
    Pressed(String),
    /// The person chose Edit on this failed intent; its content was loaded for changes.
    Editing(String),
}

impl Link {
    pub fn key(&self) -> &str {
        match self {
            Link::Pressed(key) | Link::Editing(key) => key,
        }
    }
}

/// The outcome of a press.
#[derive(Clone, Debug, PartialEq)]
pub enum PressDecision {
    /// The draft already has an unfinished intent: send that one (same key), make nothing.
    Reuse,
    /// The draft is exactly what the server refused: never resend it unchanged.
    RefuseUnchanged(Problem),
    /// Make a new intent (new key). `replaces` is an edited failed intent, dropped only
    /// once the new one is stored.
    New { replaces: Option<String> },
}

/// Decides what a press of Save does, given the intent the editor is linked to.
pub fn decide_press(
    linked: Option<(&Link, &SaveIntent)>,
    title: &str,
    body: &str,
) -> PressDecision {
    let Some((link, intent)) = linked else {
        return PressDecision::New { replaces: None };
    };
    if intent.matches_draft(title, body) {
        return match &intent.state {
            IntentState::Failed { problem } => PressDecision::RefuseUnchanged(problem.clone()),
            _ => PressDecision::Reuse,
        };
    }
    match link {
        Link::Editing(key) => PressDecision::New {
            replaces: Some(key.clone()),
        },
        // The editor was pressed on and then changed without Edit: a new note, and the
        // earlier intent keeps its own content and key.
        Link::Pressed(_) => PressDecision::New { replaces: None },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn intent(state: IntentState) -> SaveIntent {
        SaveIntent {
            state,
            ..SaveIntent::create("k1".into(), "t", "b", "w".into())
        }
    }

    fn refused() -> Problem {
        Problem {
            kind: "/problems/validation-failed".into(),
            title: "x".into(),
            status: 422,
            detail: "d".into(),
        }
    }

    #[test]
    fn a_second_press_on_an_unchanged_draft_reuses_its_intent() {
        let sending = intent(IntentState::Sending);
        let link = Link::Pressed("k1".into());
        assert_eq!(
            decide_press(Some((&link, &sending)), "t", "b"),
            PressDecision::Reuse
        );
        let waiting = intent(IntentState::Waiting {
            cause: crate::save::waiting::WaitReason::Offline,
        });
        assert_eq!(
            decide_press(Some((&link, &waiting)), "t", "b"),
            PressDecision::Reuse
        );
    }

    #[test]
    fn a_press_with_no_linked_intent_makes_a_new_one() {
        assert_eq!(
            decide_press(None, "t", "b"),
            PressDecision::New { replaces: None }
        );
    }

    #[test]
    fn a_refused_draft_is_not_resent_unchanged() {
        let failed = intent(IntentState::Failed { problem: refused() });
        let link = Link::Editing("k1".into());
        assert_eq!(
            decide_press(Some((&link, &failed)), "t", "b"),
            PressDecision::RefuseUnchanged(refused())
        );
    }

    #[test]
    fn an_edited_failed_draft_gets_a_new_key_that_replaces_the_old_intent() {
        let failed = intent(IntentState::Failed { problem: refused() });
        let link = Link::Editing("k1".into());
        assert_eq!(
            decide_press(Some((&link, &failed)), "t2", "b"),
            PressDecision::New {
                replaces: Some("k1".into())
            }
        );
    }

    #[test]
    fn changing_the_draft_after_a_press_never_drops_the_pressed_intent() {
        let waiting = intent(IntentState::Waiting {
            cause: crate::save::waiting::WaitReason::Offline,
        });
        let link = Link::Pressed("k1".into());
        assert_eq!(
            decide_press(Some((&link, &waiting)), "other", "b"),
            PressDecision::New { replaces: None }
        );
    }
}
