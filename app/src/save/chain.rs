//! Edits of one note made faster than they are sent follow one another: a later edit made
//! from an earlier one's text (`after`) starts from what the earlier one became. When the
//! earlier edit was applied as sent, it simply takes that version (`rebased_after`). When
//! the server merged it with a change from elsewhere (a pin, a tick on another device),
//! the later edit's own changes are carried onto the merged text — else, sent against the
//! old version, a change that *undoes* the earlier one (the second click of a double
//! click) reads as "no change" and is lost in the merge.

use super::intent::{IntentKind, SaveIntent};
use crate::api::Note;

/// `later`, made from `sent` (the earlier edit's body), carried onto `merged` (what the
/// earlier edit became): each line the later edit changed takes its text, every other
/// line the merged one. Only when no line was added or removed on any side (the shape of
/// ticks and small fixes); `None` otherwise, and the server's merge decides.
pub fn carried_onto(sent: &str, later: &str, merged: &str) -> Option<String> {
    let lines = |text| -> Vec<&str> { str::split_inclusive(text, '\n').collect() };
    let (sent, later, merged) = (lines(sent), lines(later), lines(merged));
    if sent.len() != later.len() || sent.len() != merged.len() {
        return None;
    }
    Some(
        sent.iter()
            .zip(&later)
            .zip(&merged)
            .map(|((s, l), m)| if l != s { *l } else { *m })
            .collect(),
    )
}

/// The unsent edit `later` (made behind `earlier`) starting from `merged`, the note the
/// earlier edit became when the server merged it; `None` when it cannot be carried (it
/// was sent already — a key is never sent with two payloads —, it is not an edit made
/// from `earlier`'s text, or lines were added or removed).
pub fn onto_merged(later: &SaveIntent, earlier: &SaveIntent, merged: &Note) -> Option<SaveIntent> {
    let (
        IntentKind::Edit {
            title,
            body,
            after: Some(after),
            ..
        },
        IntentKind::Edit {
            title: sent_title,
            body: sent_body,
            ..
        },
    ) = (&later.kind, &earlier.kind)
    else {
        return None;
    };
    if later.attempts > 0 || *after != earlier.key {
        return None;
    }
    let body = carried_onto(sent_body, body, &merged.body)?;
    let title = if title == sent_title {
        merged.title.clone()
    } else {
        title.clone()
    };
    let mut carried = later.clone();
    if let IntentKind::Edit {
        base_version,
        title: t,
        body: b,
        ..
    } = &mut carried.kind
    {
        *base_version = merged.version;
        *t = title;
        *b = body;
    }
    Some(carried)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::toggle_task;

    const LIST: &str = "List\n- [ ] milk\n- [ ] eggs";

    fn edit(key: &str, base: i64, body: &str, after: Option<&str>) -> SaveIntent {
        SaveIntent::new(
            key.into(),
            IntentKind::Edit {
                note_id: "n".into(),
                base_version: base,
                title: "T".into(),
                body: body.into(),
                after: after.map(str::to_owned),
            },
            "2026-12-01T00:00:00.000Z".into(),
        )
    }

    fn note(version: i64, body: &str) -> Note {
        Note {
            id: "n".into(),
            title: "T".into(),
            body: body.into(),
            written_at: "w".into(),
            created_at: "c".into(),
            updated_at: "u".into(),
            version,
            trashed_at: None,
            conflict_of: None,
            tags: Vec::new(),
            pinned: true,
            html: None,
        }
    }

    #[test]
    fn the_second_click_of_a_double_click_behind_a_merged_first_is_carried_onto_its_result() {
        // The note was pinned (v4) while the first tick, made from v3, waited: merged.
        let on = toggle_task(LIST, 2).unwrap();
        let first = edit("t1", 3, &on, None);
        let second = edit("t2", 3, LIST, Some("t1"));
        let merged = note(5, &on);
        let carried = onto_merged(&second, &first, &merged).unwrap();
        let IntentKind::Edit {
            base_version, body, ..
        } = &carried.kind
        else {
            panic!()
        };
        assert_eq!(
            (*base_version, body.as_str()),
            (5, LIST),
            "the box ends unticked"
        );
        assert_eq!(carried.key, "t2", "the same key, never sent before");
    }

    #[test]
    fn changes_from_elsewhere_in_the_merge_are_kept_and_a_sent_edit_is_never_changed() {
        let first = edit("t1", 3, &toggle_task(LIST, 2).unwrap(), None);
        let second_body = toggle_task(&toggle_task(LIST, 2).unwrap(), 3).unwrap();
        let second = edit("t2", 3, &second_body, Some("t1"));
        let elsewhere = "List (shared)\n- [x] milk\n- [ ] eggs";
        let carried = onto_merged(&second, &first, &note(5, elsewhere)).unwrap();
        assert_eq!(carried.text().1, "List (shared)\n- [x] milk\n- [x] eggs");
        let sent = SaveIntent {
            attempts: 1,
            ..second.clone()
        };
        assert_eq!(onto_merged(&sent, &first, &note(5, elsewhere)), None);
        let longer = "List (shared)\n- [x] milk\n- [ ] eggs\n- [ ] more";
        assert_eq!(onto_merged(&second, &first, &note(5, longer)), None);
        let unrelated = edit("t3", 3, LIST, Some("other"));
        assert_eq!(onto_merged(&unrelated, &first, &note(5, elsewhere)), None);
    }
}
