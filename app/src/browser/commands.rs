//! What the page's door does in the browser: a press of Save, Edit, Discard. Storage is
//! written first; the page shows only what storage holds.

use leptos::prelude::*;

use super::drain::drain;
use super::{finished, intent_store, tab_lock};
use crate::api::validate_draft;
use crate::save::intent::SaveIntent;
use crate::save::press::{Link, PressDecision, decide_press};
use crate::state::PageState;
use crate::state::queue::QueueEntry;

/// A press of Save.
pub fn press_save(page: PageState) {
    let (editor, queue) = (page.editor, page.queue);
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
        editor.link.set(None);
        editor.title.set(String::new());
        editor.body.set(String::new());
        editor
            .notice
            .set(Some("Already saved (by another tab).".into()));
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
            let intent = SaveIntent::create(
                uuid::Uuid::new_v4().to_string(),
                &title,
                &body,
                now_rfc3339(),
            );
            // Stored before the first request can leave — or not sent at all.
            if let Err(refused) = intent_store::insert(&intent) {
                editor.notice.set(Some(format!(
                    "Not saved: {}. Your text is still here; make room (discard notes that \
                     failed, or clear other data this site keeps) and press Save again.",
                    refused.0
                )));
                return;
            }
            editor.notice.set(None);
            let key = intent.key.clone();
            queue.add(intent);
            // The edited failed intent goes only now that its successor is stored.
            if let Some(old) = replaces {
                drop_intent(page, old);
            }
            editor.link.set(Some(Link::Pressed(key)));
            drain(page);
        }
    }
}

/// Loads a failed intent into the editor; the next Save replaces it with a new key.
pub fn edit(page: PageState, key: &str) {
    if let Some(intent) = page.queue.intent(key) {
        let (title, body) = intent.text();
        page.editor.title.set(title.to_owned());
        page.editor.body.set(body.to_owned());
        page.editor.link.set(Some(Link::Editing(key.to_owned())));
        page.editor.notice.set(None);
    }
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
            if page.editor.is_linked_to(&key) {
                page.editor.link.set(None);
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
