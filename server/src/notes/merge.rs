//! The three-way merge of an edit made from an older version: line by line against the
//! revision the edit started from (diff3). Changes in different lines are both kept;
//! changes to the same lines overlap, and then nothing is merged — the caller keeps the
//! note as it is and saves the edit as a conflict copy. Never word by word: a merge that
//! splices words of two versions of one line is how text gets garbled.

/// What a merge gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Merged {
    /// Both sides' changes, in one title and body.
    Clean { title: String, body: String },
    /// The two sides changed the same lines (or the title) differently.
    Overlap,
}

/// A note's text: title and body.
#[derive(Clone, Copy, Debug)]
pub struct Text<'a> {
    pub title: &'a str,
    pub body: &'a str,
}

/// Merges `incoming` (made from `base`) into `current` (what the note became since).
pub fn three_way(base: Text<'_>, current: Text<'_>, incoming: Text<'_>) -> Merged {
    let Some(title) = merge_whole(base.title, current.title, incoming.title) else {
        return Merged::Overlap;
    };
    let body = match merge_whole(base.body, current.body, incoming.body) {
        Some(body) => body,
        None => match line_by_line(base.body, current.body, incoming.body) {
            Some(Some(body)) => body,
            Some(None) => return Merged::Overlap,
            None => match diffy::merge(base.body, current.body, incoming.body) {
                Ok(body) => body,
                Err(_) => return Merged::Overlap,
            },
        },
    };
    Merged::Clean { title, body }
}

/// When no side added or removed a line (two ticks of a checklist, two fixes of
/// different lines): line N of each side stands for line N of the base, so each line
/// merges on its own — and changes to neighbouring lines, which diff3 counts as one
/// overlapping hunk, are both kept. `None` when the line counts differ (diff3 decides);
/// `Some(None)` when one line was changed differently on both sides.
fn line_by_line(base: &str, current: &str, incoming: &str) -> Option<Option<String>> {
    let lines = |text| -> Vec<&str> { str::split_inclusive(text, '\n').collect() };
    let (base, current, incoming) = (lines(base), lines(current), lines(incoming));
    if base.len() != current.len() || base.len() != incoming.len() {
        return None;
    }
    let mut merged = String::new();
    for ((b, c), i) in base.iter().zip(&current).zip(&incoming) {
        match merge_whole(b, c, i) {
            Some(line) => merged.push_str(&line),
            None => return Some(None),
        }
    }
    Some(Some(merged))
}

/// The merge when one side left the value as it was (or both made the same change);
/// `None` when both changed it differently.
fn merge_whole(base: &str, current: &str, incoming: &str) -> Option<String> {
    if incoming == base || incoming == current {
        Some(current.to_owned())
    } else if current == base {
        Some(incoming.to_owned())
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text<'a>(title: &'a str, body: &'a str) -> Text<'a> {
        Text { title, body }
    }

    #[test]
    fn changes_to_different_lines_are_both_kept() {
        let base = text("Plan", "one\ntwo\nthree\nfour\nfive\n");
        let current = text("Plan", "ONE\ntwo\nthree\nfour\nfive\n");
        let incoming = text("Plan", "one\ntwo\nthree\nfour\nFIVE\n");
        assert_eq!(
            three_way(base, current, incoming),
            Merged::Clean {
                title: "Plan".into(),
                body: "ONE\ntwo\nthree\nfour\nFIVE\n".into()
            }
        );
    }

    #[test]
    fn ticks_of_neighbouring_tasks_on_two_devices_are_both_kept() {
        let base = text("List", "- [ ] milk\n- [ ] eggs\n- [ ] bread");
        let current = text("List", "- [x] milk\n- [ ] eggs\n- [ ] bread");
        let incoming = text("List", "- [ ] milk\n- [x] eggs\n- [ ] bread");
        assert_eq!(
            three_way(base, current, incoming),
            Merged::Clean {
                title: "List".into(),
                body: "- [x] milk\n- [x] eggs\n- [ ] bread".into()
            }
        );
        let other = text("List", "- [ ] milk\n- [ ] eggs\n- [ ] bread!");
        assert_eq!(
            three_way(base, current, other),
            Merged::Clean {
                title: "List".into(),
                body: "- [x] milk\n- [ ] eggs\n- [ ] bread!".into()
            }
        );
    }

    #[test]
    fn changes_to_the_same_line_overlap() {
        let base = text("Plan", "one\ntwo\nthree\n");
        let current = text("Plan", "one\nTWO here\nthree\n");
        let incoming = text("Plan", "one\ntwo there\nthree\n");
        assert_eq!(three_way(base, current, incoming), Merged::Overlap);
    }

    #[test]
    fn the_same_change_on_both_sides_is_no_conflict() {
        let base = text("Plan", "one\ntwo\n");
        let both = text("Plan", "one\n2\n");
        assert_eq!(
            three_way(base, both, both),
            Merged::Clean {
                title: "Plan".into(),
                body: "one\n2\n".into()
            }
        );
    }

    #[test]
    fn a_title_changed_on_one_side_and_the_body_on_the_other_merge() {
        let base = text("Plan", "body");
        let current = text("New plan", "body");
        let incoming = text("Plan", "body, longer");
        assert_eq!(
            three_way(base, current, incoming),
            Merged::Clean {
                title: "New plan".into(),
                body: "body, longer".into()
            }
        );
    }

    #[test]
    fn two_different_titles_overlap() {
        let base = text("Plan", "b");
        assert_eq!(
            three_way(base, text("Plan A", "b"), text("Plan B", "b")),
            Merged::Overlap
        );
    }

    #[test]
    fn lines_added_at_the_end_without_a_final_newline_merge_with_a_change_at_the_start() {
        let base = text("t", "a\nb\nc\nd");
        let current = text("t", "A\nb\nc\nd");
        let incoming = text("t", "a\nb\nc\nd\ne");
        assert_eq!(
            three_way(base, current, incoming),
            Merged::Clean {
                title: "t".into(),
                body: "A\nb\nc\nd\ne".into()
            }
        );
    }

    #[test]
    fn one_line_bodies_changed_on_both_sides_overlap_rather_than_splice_words() {
        let base = text("t", "the quick brown fox");
        let current = text("t", "the quick red fox");
        let incoming = text("t", "the slow brown fox");
        assert_eq!(three_way(base, current, incoming), Merged::Overlap);
    }
}
