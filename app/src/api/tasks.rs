//! Task items: `- [ ] milk` is a box to tick. Ticking one on the note page is an edit of
//! that one line of the body (an intent like any edit), made here so the browser and the
//! server's tests toggle the same way.

/// The body with the task on its 1-based `line` ticked (`[ ]` → `[x]`) or unticked
/// (`[x]`/`[X]` → `[ ]`), every other byte as it was; `None` if that line holds no task.
pub fn toggle_task(body: &str, line: usize) -> Option<String> {
    let (start, text, marker) = task_line(body, line)?;
    let at = start + marker;
    let ticked = text.as_bytes()[marker + 1] != b' ';
    let mut out = String::with_capacity(body.len());
    out.push_str(&body[..at + 1]);
    out.push(if ticked { ' ' } else { 'x' });
    out.push_str(&body[at + 2..]);
    Some(out)
}

/// Whether the task on the 1-based `line` is ticked; `None` if that line holds no task.
pub fn task_state(body: &str, line: usize) -> Option<bool> {
    let (_, text, at) = task_line(body, line)?;
    Some(text.as_bytes()[at + 1] != b' ')
}

/// Whether the 1-based `line` holds the same task in both bodies: the same line, but for
/// whether its box is ticked.
pub fn same_task(a: &str, b: &str, line: usize) -> bool {
    match (task_line(a, line), task_line(b, line)) {
        (Some((_, a, at_a)), Some((_, b, at_b))) => {
            at_a == at_b && a[..=at_a] == b[..=at_b] && a[at_a + 2..] == b[at_b + 2..]
        }
        _ => false,
    }
}

/// Where the 1-based `line` starts, its text, and where in it the task marker's `[` is —
/// if it holds a task.
fn task_line(body: &str, line: usize) -> Option<(usize, &str, usize)> {
    let start = line_start(body, line)?;
    let rest = &body[start..];
    let text = &rest[..rest.find('\n').unwrap_or(rest.len())];
    Some((start, text, marker_offset(text)?))
}

/// Where the 1-based `line` starts.
fn line_start(body: &str, line: usize) -> Option<usize> {
    if line == 0 {
        return None;
    }
    let mut start = 0;
    for _ in 1..line {
        start += body[start..].find('\n')? + 1;
    }
    Some(start)
}

/// Where the `[` of the task marker is in one line: indentation, any `>` of block quotes,
/// a list marker (`-`, `*`, `+`, `1.` or `1)`), spaces, then `[ ]`, `[x]` or `[X]` followed
/// by a space, a tab or the end of the line.
fn marker_offset(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut i = 0;
    let skip_blank = |i: &mut usize| {
        while *i < bytes.len() && matches!(bytes[*i], b' ' | b'\t') {
            *i += 1;
        }
    };
    skip_blank(&mut i);
    while i < bytes.len() && bytes[i] == b'>' {
        i += 1;
        skip_blank(&mut i);
    }
    match bytes.get(i)? {
        b'-' | b'*' | b'+' => i += 1,
        b'0'..=b'9' => {
            let digits = bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
            if digits > 9 {
                return None;
            }
            i += digits;
            if !matches!(bytes.get(i)?, b'.' | b')') {
                return None;
            }
            i += 1;
        }
        _ => return None,
    }
    let before = i;
    skip_blank(&mut i);
    if i == before {
        return None;
    }
    let marker = bytes.get(i..i + 3)?;
    let after = bytes.get(i + 3);
    let is_marker = marker[0] == b'['
        && matches!(marker[1], b' ' | b'x' | b'X')
        && marker[2] == b']'
        && matches!(after, None | Some(b' ' | b'\t' | b'\r'));
    is_marker.then_some(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticking_a_task_changes_only_its_box() {
        let body = "Shopping\n- [ ] milk\n- [x] eggs\n  * [X] nested\n> 1. [ ] quoted\r\nend";
        assert_eq!(
            toggle_task(body, 2).unwrap(),
            "Shopping\n- [x] milk\n- [x] eggs\n  * [X] nested\n> 1. [ ] quoted\r\nend"
        );
        assert_eq!(
            toggle_task(body, 3).unwrap(),
            "Shopping\n- [ ] milk\n- [ ] eggs\n  * [X] nested\n> 1. [ ] quoted\r\nend"
        );
        assert_eq!(
            toggle_task(body, 4).unwrap(),
            "Shopping\n- [ ] milk\n- [x] eggs\n  * [ ] nested\n> 1. [ ] quoted\r\nend"
        );
        assert_eq!(
            toggle_task(body, 5).unwrap(),
            "Shopping\n- [ ] milk\n- [x] eggs\n  * [X] nested\n> 1. [x] quoted\r\nend"
        );
        let twice = toggle_task(&toggle_task(body, 2).unwrap(), 2).unwrap();
        assert_eq!(twice, body);
    }

    #[test]
    fn a_task_reads_as_ticked_or_not_and_a_line_without_one_as_neither() {
        let body = "- [ ] milk\n- [x] eggs\n* [X] jam\nplain";
        assert_eq!(task_state(body, 1), Some(false));
        assert_eq!(task_state(body, 2), Some(true));
        assert_eq!(task_state(body, 3), Some(true));
        assert_eq!(task_state(body, 4), None);
        assert_eq!(task_state(body, 9), None);
    }

    #[test]
    fn the_same_task_differs_at_most_in_its_box() {
        let a = "- [ ] milk\n- [x] eggs\nplain";
        let ticked = "- [x] milk\n- [x] eggs\nplain";
        assert!(same_task(a, ticked, 1));
        assert!(same_task(a, a, 2));
        assert!(!same_task(a, "- [ ] oat milk\n- [x] eggs", 1), "other text");
        assert!(!same_task(a, "intro\n- [ ] milk", 1), "moved down a line");
        assert!(!same_task(a, "  - [ ] milk", 1), "indented");
        assert!(!same_task(a, a, 3), "not a task");
    }

    #[test]
    fn a_line_without_a_task_is_not_changed() {
        let body = "- [ ] ok\n[ ] no list\n- [] short\n-[ ] no space\n- [ ]x glued\n- [y] other";
        assert!(toggle_task(body, 1).is_some());
        for line in 2..=7 {
            assert_eq!(toggle_task(body, line), None, "line {line}");
        }
        assert_eq!(toggle_task(body, 0), None);
        assert_eq!(toggle_task("- [ ] é", 1).unwrap(), "- [x] é");
        assert_eq!(toggle_task("- [ ]", 1).unwrap(), "- [x]");
    }
}
