//! Later writes to a note an intent created — edits, ticks of its tasks, moves to the
//! trash and back — each an intent of its own with its own key, sent like the create, and
//! what the note must look like after them.

use std::cell::RefCell;
use std::time::Instant;

use app::api::{EditOutcome, toggle_task};
use app::save::http_transport::HttpTransport;
use app::save::intent::{IntentKind, SaveIntent};
use app::save::outcome::WriteAnswer;
use app::save::sender::Sender;
use rand::Rng;
use rand::rngs::StdRng;

use crate::record::{FollowUp, FollowUpKind, IntentRecord};
use crate::send::{Done, OutcomeCounts, Progress, TokioClock, send_until_done};

/// Edits the note or ticks its tasks (one to three times), sometimes pins it (and unpins
/// it), renames its tag, moves it to the trash (and back):
/// each write an intent of its own, sent like the create.
pub(crate) async fn follow_up(
    sender: &Sender<HttpTransport, TokioClock>,
    rng: &mut StdRng,
    counts: &RefCell<OutcomeCounts>,
    progress: &Progress,
    record: &mut IntentRecord,
    deadline: Instant,
) {
    let Some(note_id) = record.acked_note_id.clone() else {
        return;
    };
    let mut version = 1;
    let mut body = record.payload.body.clone();
    let mut plan: Vec<FollowUpKind> = Vec::new();
    for i in 0..rng.random_range(1..=3) {
        // The created body's tasks are its last lines but one and two.
        let tasks = body.lines().count() - 2;
        body = if rng.random_bool(0.5) {
            let line = rng.random_range(tasks..tasks + 2);
            let ticked = toggle_task(&body, line).expect("the line holds a task");
            plan.push(FollowUpKind::Tick {
                line,
                body: ticked.clone(),
            });
            ticked
        } else {
            let edited = body.replacen(": ", &format!(": edit {} ", i + 1), 1);
            plan.push(FollowUpKind::Edit {
                body: edited.clone(),
            });
            edited
        };
    }
    if rng.random_bool(0.3) {
        plan.push(FollowUpKind::Pin { pinned: true });
        if rng.random_bool(0.5) {
            plan.push(FollowUpKind::Pin { pinned: false });
        }
    }
    if rng.random_bool(0.3) {
        // The created body ends with the note's own tag, `#n<number>`.
        let from = body.rsplit('#').next().unwrap_or_default().to_owned();
        let to = format!("r{from}");
        let (_, renamed) = server::text::tags::rename_in_note("", &body, &from, &to)
            .expect("the note carries its own tag");
        plan.push(FollowUpKind::RenameTag {
            from,
            to,
            body: renamed,
        });
    }
    if rng.random_bool(0.3) {
        plan.push(FollowUpKind::Trash);
        if rng.random_bool(0.5) {
            plan.push(FollowUpKind::Restore);
        }
    }
    for kind in plan {
        let title = record.payload.title.clone();
        let intent_kind = match &kind {
            FollowUpKind::Edit { body } | FollowUpKind::Tick { body, .. } => IntentKind::Edit {
                note_id: note_id.clone(),
                base_version: version,
                title: title.clone(),
                body: body.clone(),
                after: None,
            },
            FollowUpKind::Pin { pinned } => IntentKind::Pin {
                note_id: note_id.clone(),
                title,
                pinned: *pinned,
            },
            FollowUpKind::RenameTag { from, to, .. } => IntentKind::RenameTag {
                from: from.clone(),
                to: to.clone(),
            },
            FollowUpKind::Trash => IntentKind::Trash {
                note_id: note_id.clone(),
                title,
            },
            FollowUpKind::Restore => IntentKind::Restore {
                note_id: note_id.clone(),
                title,
            },
        };
        let written_at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let intent = SaveIntent::new(uuid::Uuid::new_v4().to_string(), intent_kind, written_at);
        let renames = matches!(kind, FollowUpKind::RenameTag { .. });
        let mut follow = FollowUp {
            // The revision a rename leaves on the note is kept under the rename's key and
            // the note's id (docs/PROTOCOL.md, Renaming a tag).
            key: if renames {
                format!("{} {note_id}", intent.key)
            } else {
                intent.key.clone()
            },
            kind,
            acked: false,
            problem: None,
        };
        let mut tally = (0, 0);
        match send_until_done(sender, rng, counts, &intent, deadline, 1, &mut tally).await {
            Done::Saved { answer, .. } => {
                // A single writer's edit from the version it knows is applied as sent.
                let as_expected = match (answer.as_ref(), &follow.kind) {
                    (WriteAnswer::Edited(edit), _) => edit.outcome == EditOutcome::Applied,
                    (WriteAnswer::Moved(moved), FollowUpKind::Pin { pinned }) => {
                        moved.pinned == *pinned
                    }
                    (WriteAnswer::Moved(_), _) => true,
                    (WriteAnswer::Renamed(done), _) => done.renamed == 1,
                    _ => false,
                };
                if !as_expected {
                    follow.problem = Some(format!("unexpected answer {answer:?}"));
                }
                version = answer.note().map_or(version + 1, |n| n.version);
                follow.acked = true;
                progress
                    .acked_follow_up_keys
                    .lock()
                    .expect("not poisoned")
                    .push(follow.key.clone());
            }
            Done::Refused(problem) => follow.problem = Some(problem),
            Done::OutOfTime => {}
        }
        record.attempts += tally.0;
        record.bursts += tally.1;
        let stop = !follow.acked;
        record.follow_ups.push(follow);
        if stop {
            return;
        }
    }
}
