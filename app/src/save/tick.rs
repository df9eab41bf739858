//! A tick of a task on the note page is an edit of that one line. Which text it is made
//! from decides whether ticks made faster than they are sent (two items ticked quickly, a
//! double click, ticks made offline) follow one another or conflict; and the same choice
//! tells the page how to show each box while the ticks wait.

use crate::api::{same_task, task_state, toggle_task};

/// The note as the page shows it (the latest version the page knows).
#[derive(Clone, Copy, Debug)]
pub struct Shown<'a> {
    pub title: &'a str,
    pub body: &'a str,
}

/// This browser's latest edit of the note that is neither saved nor refused.
#[derive(Clone, Copy, Debug)]
pub struct Unsent<'a> {
    pub key: &'a str,
    pub title: &'a str,
    pub body: &'a str,
}

/// The edit one tick makes: its text, and the earlier unsent edit it follows (see
/// `SaveIntent::rebased_after`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tick {
    pub title: String,
    pub body: String,
    pub after: Option<String>,
}

/// The text the task on `line` is read from: the latest unsent edit's when it holds the
/// same task on that line (the line numbers the page shows are the shown note's), else
/// the shown note's.
fn latest<'a>(
    shown: Shown<'a>,
    unsent: Option<Unsent<'a>>,
    line: usize,
) -> (Shown<'a>, Option<&'a str>) {
    match unsent {
        Some(unsent) if same_task(shown.body, unsent.body, line) => (
            Shown {
                title: unsent.title,
                body: unsent.body,
            },
            Some(unsent.key),
        ),
        _ => (shown, None),
    }
}

/// The edit that leaves the task on `line` ticked as `checked` (what the box shows now
/// that the person clicked it). Made from the latest unsent edit when that edit holds the
/// same task on that line — the second of two quick ticks carries the first one's change
/// too and follows it, so the two never overlap — else from the shown note, which the
/// server merges line by line with any other edit. `None` when the task already is as
/// asked, or the line holds no task.
pub fn tick(
    shown: Shown<'_>,
    unsent: Option<Unsent<'_>>,
    line: usize,
    checked: bool,
) -> Option<Tick> {
    let (from, after) = latest(shown, unsent, line);
    if task_state(from.body, line)? == checked {
        return None;
    }
    Some(Tick {
        title: from.title.to_owned(),
        body: toggle_task(from.body, line)?,
        after: after.map(str::to_owned),
    })
}

/// Whether the box on `line` shows ticked: as the latest unsent edit leaves it when it
/// holds the same task (a tick waiting to be sent stays as the person left it), else as
/// the shown note has it. `None` if the line holds no task.
pub fn shown_ticked(shown: Shown<'_>, unsent: Option<Unsent<'_>>, line: usize) -> Option<bool> {
    task_state(latest(shown, unsent, line).0.body, line)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &str = "Shopping\n- [ ] milk\n- [ ] eggs";

    fn shown(body: &str) -> Shown<'_> {
        Shown {
            title: "List",
            body,
        }
    }

    #[test]
    fn a_tick_with_nothing_unsent_is_made_from_the_shown_note() {
        let t = tick(shown(BODY), None, 2, true).unwrap();
        assert_eq!(t.body, "Shopping\n- [x] milk\n- [ ] eggs");
        assert_eq!((t.title.as_str(), t.after), ("List", None));
    }

    #[test]
    fn a_double_click_makes_two_edits_that_end_where_they_started() {
        let first = tick(shown(BODY), None, 2, true).unwrap();
        let unsent = Unsent {
            key: "k1",
            title: &first.title,
            body: &first.body,
        };
        let second = tick(shown(BODY), Some(unsent), 2, false).unwrap();
        assert_eq!(second.body, BODY);
        assert_eq!(second.after.as_deref(), Some("k1"));
    }

    #[test]
    fn two_quick_ticks_of_different_items_chain_and_keep_both() {
        let first = tick(shown(BODY), None, 2, true).unwrap();
        let unsent = Unsent {
            key: "k1",
            title: &first.title,
            body: &first.body,
        };
        let second = tick(shown(BODY), Some(unsent), 3, true).unwrap();
        assert_eq!(second.body, "Shopping\n- [x] milk\n- [x] eggs");
        assert_eq!(second.after.as_deref(), Some("k1"));
    }

    #[test]
    fn an_unsent_text_edit_that_moved_the_task_is_left_to_the_servers_merge() {
        // The person added a line above the list and saved while offline: line 2 is no
        // longer the milk in that text, so the tick is made from the note as shown.
        let edited = "Shopping\nfor Sunday\n- [ ] milk\n- [ ] eggs";
        let unsent = Unsent {
            key: "k1",
            title: "List (edited)",
            body: edited,
        };
        let t = tick(shown(BODY), Some(unsent), 2, true).unwrap();
        assert_eq!(t.body, "Shopping\n- [x] milk\n- [ ] eggs");
        assert_eq!((t.title.as_str(), t.after), ("List", None));
        // A text edit elsewhere keeps the task's line: the tick follows it, title too.
        let renamed = Unsent {
            key: "k1",
            title: "List (edited)",
            body: "Shopping!\n- [ ] milk\n- [ ] eggs",
        };
        let t = tick(shown(BODY), Some(renamed), 2, true).unwrap();
        assert_eq!(t.body, "Shopping!\n- [x] milk\n- [ ] eggs");
        assert_eq!(t.title, "List (edited)");
        assert_eq!(t.after.as_deref(), Some("k1"));
    }

    #[test]
    fn a_box_already_as_asked_or_a_line_without_a_task_makes_no_edit() {
        assert_eq!(tick(shown(BODY), None, 2, false), None);
        assert_eq!(tick(shown(BODY), None, 1, true), None);
        assert_eq!(tick(shown(BODY), None, 7, true), None);
    }

    #[test]
    fn a_box_shows_the_latest_unsent_tick_of_its_task() {
        let ticked = "Shopping\n- [x] milk\n- [ ] eggs";
        let unsent = || {
            Some(Unsent {
                key: "k1",
                title: "List",
                body: ticked,
            })
        };
        assert_eq!(shown_ticked(shown(BODY), None, 2), Some(false));
        assert_eq!(shown_ticked(shown(BODY), unsent(), 2), Some(true));
        assert_eq!(shown_ticked(shown(BODY), unsent(), 3), Some(false));
        assert_eq!(shown_ticked(shown(BODY), unsent(), 1), None);
        let moved = Unsent {
            key: "k1",
            title: "List",
            body: "new first line\nShopping\n- [x] milk",
        };
        assert_eq!(shown_ticked(shown(BODY), Some(moved), 2), Some(false));
    }
}
