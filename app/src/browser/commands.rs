//! The save commands the page's door takes in the browser: a press of Save (of a new note
//! or an edit), a tick of a task, Edit, Discard, the moves to the trash and back, pins and
//! tag renames — each a save intent.
//! Storage is written first; the page shows only what storage holds.

use leptos::prelude::*;

use super::drain::drain;
use super::intent_store::{self, NotWritten};
use super::{finished, tab_lock};
use crate::api::{Note, validate_draft};
use crate::save::intent::{IntentKind, SaveIntent};
use crate::save::press::{Link, PressDecision, decide_press};
use crate::save::tick::{Shown, Unsent, tick};
use crate::state::PageState;
use crate::state::editor::{Editor, EditorTarget};
use crate::state::notices::Notice;
use crate::state::queue::QueueEntry;

/// A press of Save in `editor` (the compose form, or the note page's edit form).
pub fn press_save(page: PageState, editor: Editor) {
    let queue = page.queue;
    let title = editor.title.get_untracked();
    let body = editor.body.get_untracked();
    if let Err(error) = validate_draft(&title, &body) {
        editor.notice.set(Some(format!("Not saved: {error}.")));
        return;
    }
    let link = editor.link.get_untracked();
    // Another tab finished this draft's intent while this one looked away: it is saved.
    if let Some(link) = &link
        && queue.intent(link.key()).is_none()
        && intent_store::load(link.key()).is_none()
        && finished::is_finished(link.key())
    {
        editor.saved_elsewhere();
        return;
    }
    let linked = link
        .as_ref()
        .and_then(|l| queue.intent(l.key()).map(|i| (l.clone(), i)));
    match decide_press(linked.as_ref().map(|(l, i)| (l, i)), &title, &body) {
        PressDecision::Reuse => {
            editor.notice.set(None);
            drain(page);
        }
        PressDecision::RefuseUnchanged(problem) => editor.notice.set(Some(format!(
            "The server refused this exact note ({}). Change it, then save.",
            problem.detail
        ))),
        PressDecision::New { replaces } => {
            let kind = match editor.target.get_value() {
                EditorTarget::NewNote => IntentKind::Create { title, body },
                EditorTarget::Note { id } => IntentKind::Edit {
                    after: latest_unsent_edit(page, &id),
                    note_id: id,
                    base_version: editor.base_version.get_untracked(),
                    title,
                    body,
                },
            };
            let intent = match enqueue(page, kind) {
                Ok(intent) => intent,
                Err(refused) => {
                    editor.notice.set(Some(format!(
                        "Not saved: {}. Your text is still here; make room (discard notes \
                         that failed, or clear other data this site keeps) and press Save again.",
                        refused.0
                    )));
                    return;
                }
            };
            editor.notice.set(None);
            // The edited failed intent goes only now that its successor is stored.
            if let Some(old) = replaces {
                drop_intent(page, old);
            }
            editor.link.set(Some(Link::Pressed(intent.key)));
        }
    }
}

/// The key of the newest edit of this note that is not yet sent, if any.
fn latest_unsent_edit(page: PageState, note_id: &str) -> Option<String> {
    page.queue.latest_unsent_edit(note_id).map(|i| i.key)
}

/// Makes an intent of `kind`, stores it (before anything is sent), shows it, and starts
/// sending. Nothing happens if it cannot be stored.
fn enqueue(page: PageState, kind: IntentKind) -> Result<SaveIntent, NotWritten> {
    let intent = SaveIntent {
        seq: Some(intent_store::next_seq()),
        ..SaveIntent::new(uuid::Uuid::new_v4().to_string(), kind, now_rfc3339())
    };
    intent_store::insert(&intent)?;
    page.queue.add(intent.clone());
    drain(page);
    Ok(intent)
}

/// A move to the trash, out of it, a delete for good, a pin or a tag rename. A refusal to
/// store it is shown as a notice (there is no draft to keep).
pub fn change_note(page: PageState, kind: IntentKind) {
    if let Err(refused) = enqueue(page, kind) {
        page.notices.notify(Notice {
            id: uuid::Uuid::new_v4().to_string(),
            text: format!("Not done: {}. Make room and try again.", refused.0),
            link: None,
            action: None,
        });
    }
}

/// An edit back to an earlier revision's text, from the note's current version.
pub fn restore_version(
    page: PageState,
    note_id: String,
    current_version: i64,
    title: String,
    body: String,
) {
    let after = latest_unsent_edit(page, &note_id);
    change_note(
        page,
        IntentKind::Edit {
            note_id,
            base_version: current_version,
            title,
            body,
            after,
        },
    );
}

/// A tick of the task on the 1-based `line` of `note` (the note as the page shows it),
/// leaving it `checked`: an edit of that line, from the note's version, made from the text
/// of this note's latest unsent edit when it holds the same task (so quick ticks chain,
/// each its own intent with its own key), else from the note as shown.
pub fn tick_task(page: PageState, note: Note, line: usize, checked: bool) {
    let unsent = page.queue.latest_unsent_edit(&note.id);
    let unsent = unsent.as_ref().map(|intent| {
        let (title, body) = intent.text();
        Unsent {
            key: &intent.key,
            title,
            body,
        }
    });
    let shown = Shown {
        title: &note.title,
        body: &note.body,
    };
    let Some(tick) = tick(shown, unsent, line, checked) else {
        return;
    };
    change_note(
        page,
        IntentKind::Edit {
            note_id: note.id.clone(),
            base_version: note.version,
            title: tick.title,
            body: tick.body,
            after: tick.after,
        },
    );
}

/// Undoes a move to the trash: an unsent trash intent is simply dropped; one that may
/// have reached the server is followed by a restore.
pub fn undo_trash(page: PageState, note_id: String, title: String) {
    let unsent = page
        .queue
        .pending_for(&note_id)
        .into_iter()
        .rev()
        .find(|i| matches!(i.kind, IntentKind::Trash { .. }) && i.attempts == 0);
    leptos::task::spawn_local(async move {
        if let Some(intent) = unsent {
            let key = intent.key.clone();
            let dropped = tab_lock::exclusively(&key, async {
                // Still unsent now that the lock is held?
                let still_unsent = intent_store::load(&key).is_some_and(|i| i.attempts == 0);
                if still_unsent {
                    intent_store::remove(&key);
                }
                still_unsent
            })
            .await;
            if dropped == Some(true) {
                page.queue.remove(&key);
                return;
            }
        }
        change_note(page, IntentKind::Restore { note_id, title });
    });
}

/// Loads a failed intent into its editor; the next Save replaces it with a new key.
pub fn edit(page: PageState, key: &str) {
    let Some(intent) = page.queue.intent(key) else {
        return;
    };
    let editor = match &intent.kind {
        IntentKind::Create { .. } => page.editor,
        IntentKind::Edit {
            note_id,
            base_version,
            ..
        } => {
            page.note_editor.aim_at(note_id, *base_version);
            page.note_editor
        }
        _ => return,
    };
    let (title, body) = intent.text();
    editor.load_for_editing(key, title, body);
}

/// Drops an unsaved entry for good.
pub fn discard(page: PageState, id: &str) {
    let entry = page
        .queue
        .entries
        .with_untracked(|all| all.iter().find(|e| e.id() == id).cloned());
    match entry {
        Some(QueueEntry::Intent(intent)) => drop_intent(page, intent.key),
        Some(QueueEntry::Unreadable { storage_key, .. }) => {
            intent_store::remove_entry(&storage_key);
            page.queue.remove(&storage_key);
        }
        None => {}
    }
}

/// Removes an intent from storage while holding its lock (a tab sending it keeps it).
fn drop_intent(page: PageState, key: String) {
    leptos::task::spawn_local(async move {
        let dropped = tab_lock::exclusively(&key, async {
            intent_store::remove(&key);
        })
        .await;
        if dropped.is_some() {
            page.queue.remove(&key);
            for editor in page.editors() {
                if editor.is_linked_to(&key) {
                    editor.link.set(None);
                }
            }
        } else {
            page.editor.notice.set(Some(
                "Another tab is sending that note right now; it was kept.".into(),
            ));
        }
    });
}

/// The moment Save was pressed, RFC 3339 in UTC.
fn now_rfc3339() -> String {
    String::from(js_sys::Date::new_0().to_iso_string())
}
