//! Sends the queue: one burst per unsaved intent, oldest first, each under its tab lock.
//! Started on page load, on a new Save, on `online`, when the tab is shown again, on
//! Retry now, and by the slow background retry. Every change to an intent is written to
//! storage first and shown after; only the tab holding an intent's lock writes it. The
//! files a note refers to that are kept here and not yet uploaded are uploaded first
//! (`file_upload.rs`); the note waits (or fails, for a refused file) until they are.

use std::cell::Cell;

use leptos::prelude::Set;

use super::fetch_transport::{FetchTransport, TimerClock};
use super::finished::{self, Finished};
use super::{file_upload, intent_store, namespace, tab_lock};
use crate::api::{EditAnswer, EditOutcome, Note};
use crate::links::tag_href;
use crate::save::chain;
use crate::save::file_upload::UploadEnd;
use crate::save::intent::{IntentKind, IntentState, SaveIntent};
use crate::save::outcome::{SignInNeeded, WaitCause, WriteAnswer};
use crate::save::retry_policy::RetryPolicy;
use crate::save::sender::{BurstEnd, BurstEvent, BurstHooks, Sender};
use crate::save::waiting::WaitReason;
use crate::state::PageState;
use crate::state::notices::{Notice, NoticeAction};

thread_local! {
    static DRAINING: Cell<bool> = const { Cell::new(false) };
    static AGAIN: Cell<bool> = const { Cell::new(false) };
}

/// Starts sending unless a run is going; then that run goes round once more.
pub fn drain(page: PageState) {
    if DRAINING.get() {
        AGAIN.set(true);
        return;
    }
    DRAINING.set(true);
    leptos::task::spawn_local(async move {
        run(page).await;
        DRAINING.set(false);
    });
}

enum Continue {
    NextIntent,
    /// The server (or the network) is not answering: the rest of the queue waits for the
    /// next burst instead of spending attempts now.
    StopQueue,
}

async fn run(page: PageState) {
    // This page's intents are its person's (their part of the storage); each attempt
    // says so, whoever's cookie the browser holds by then.
    let sender = Sender::new(
        FetchTransport::for_owner(namespace::user()),
        TimerClock,
        RetryPolicy::default(),
    );
    loop {
        AGAIN.set(false);
        for key in page.queue.sendable_keys() {
            let burst = async {
                // Read it fresh: another tab may have finished or refused it a moment ago.
                let Some(mut intent) = intent_store::load(&key) else {
                    return Continue::NextIntent;
                };
                if intent.is_failed() {
                    page.queue.replace(intent);
                    return Continue::NextIntent;
                }
                if let Some(rebased) = rebase(&intent) {
                    persist(page, rebased.clone());
                    intent = rebased;
                }
                // The files it refers to go first: a note is never stored pointing at a
                // file the server does not hold yet.
                let (title, body) = intent.text();
                let text = format!("{title}\n{body}");
                match file_upload::upload_files_of(page, &text).await {
                    UploadEnd::Uploaded => {}
                    UploadEnd::Refused { problem } => {
                        return apply(page, intent, BurstEnd::Failed { problem });
                    }
                    UploadEnd::Waiting { last } => {
                        return apply(page, intent, BurstEnd::Waiting { last });
                    }
                    UploadEnd::Offline => return apply(page, intent, BurstEnd::Offline),
                }
                let mut hooks = PageHooks {
                    page,
                    intent: intent.clone(),
                };
                let end = sender.run_burst(&intent, &mut hooks).await;
                apply(page, hooks.intent, end)
            };
            match tab_lock::exclusively(&key, burst).await {
                Some(Continue::StopQueue) => break,
                Some(Continue::NextIntent) => {}
                // Another tab is sending it; that tab writes its state.
                None => {}
            }
            if intent_store::load(&key).is_none() {
                gone_elsewhere(page, &key);
            }
        }
        if !AGAIN.get() {
            return;
        }
    }
}

/// Records how a burst ended (the lock is still held).
fn apply(page: PageState, mut intent: SaveIntent, end: BurstEnd) -> Continue {
    match end {
        BurstEnd::Saved { answer, .. } => {
            // Accepted as this page's person's: they are the one signed in (again).
            page.connection.someone_else_signed_in.set(false);
            page.connection.session_ended.set(false);
            let (title, body) = intent.text();
            file_upload::release_files_of(&format!("{title}\n{body}"));
            finish(page, &intent, &answer);
            Continue::NextIntent
        }
        BurstEnd::Failed { problem } => {
            intent.state = IntentState::Failed { problem };
            persist(page, intent);
            Continue::NextIntent
        }
        BurstEnd::Waiting { last } => {
            // Its person is not signed in (the session ended, or someone else signed in
            // on this browser): kept in their part of the storage, sent again by the next
            // burst (refused, storing nothing, until they have signed in again).
            if let Some(who) = last.sign_in_needed() {
                page.connection
                    .someone_else_signed_in
                    .set(who == SignInNeeded::SomeoneElseSignedIn);
                page.connection
                    .session_ended
                    .set(who == SignInNeeded::SessionEnded);
                intent.state = IntentState::SignedOut;
            } else {
                intent.state = IntentState::Waiting {
                    cause: WaitReason::after(&last),
                };
            }
            persist(page, intent);
            Continue::StopQueue
        }
        BurstEnd::Offline => {
            intent.state = IntentState::Waiting {
                cause: WaitReason::Offline,
            };
            persist(page, intent);
            Continue::StopQueue
        }
    }
}

/// An unsent edit made behind an earlier edit of the same note starts from the version
/// that edit produced, when it was applied as sent (see `SaveIntent::rebased_after`).
fn rebase(intent: &SaveIntent) -> Option<SaveIntent> {
    let IntentKind::Edit {
        after: Some(earlier),
        ..
    } = &intent.kind
    else {
        return None;
    };
    let (from, to) = finished::find(earlier)?.applied?;
    intent.rebased_after(from, to)
}

/// The unsent edits made behind `earlier` start from what the server's merge made of it
/// (see `save::chain`): a second click that undoes the first is not lost in the merge.
fn carry_onto_merge(page: PageState, earlier: &SaveIntent, merged: &Note) {
    let Some(note_id) = earlier.note_id() else {
        return;
    };
    for later in page.queue.pending_for(note_id) {
        if let Some(carried) = chain::onto_merged(&later, earlier, merged) {
            persist(page, carried);
        }
    }
}

/// The server holds the write: record it (for other tabs), forget the intent, show the
/// result, and empty an editor that still holds exactly that draft.
fn finish(page: PageState, intent: &SaveIntent, answer: &WriteAnswer) {
    let applied = match (&intent.kind, answer) {
        (IntentKind::Edit { base_version, .. }, WriteAnswer::Edited(edit))
            if edit.outcome == EditOutcome::Applied =>
        {
            edit.note.as_ref().map(|note| (*base_version, note.version))
        }
        _ => None,
    };
    let record = Finished {
        key: intent.key.clone(),
        note_id: answer
            .note()
            .map(|n| n.id.clone())
            .or_else(|| intent.note_id().map(str::to_owned))
            .unwrap_or_default(),
        applied,
    };
    // The record first: a tab that sees the intent vanish can then tell "saved" from
    // "discarded". With storage full it is written once the intent's entry made room.
    let recorded = finished::record(record.clone());
    intent_store::remove(&intent.key);
    if !recorded {
        finished::record(record);
    }
    page.queue.remove(&intent.key);
    let (known_notes, notices) = (page.notes, page.notices);
    let (title, body) = intent.text();
    match answer {
        WriteAnswer::Created(note) | WriteAnswer::Moved(note) => {
            known_notes.add_saved(note.clone())
        }
        WriteAnswer::Edited(edit) => {
            for note in edit.note.iter().chain(edit.copy.iter()) {
                known_notes.add_saved(note.clone());
            }
            if let (EditOutcome::Merged, Some(merged)) = (edit.outcome, &edit.note) {
                carry_onto_merge(page, intent, merged);
            }
            if let Some(notice) = edit_notice(&intent.key, title, edit) {
                notices.notify(notice);
            }
        }
        WriteAnswer::Purged => {
            if let Some(id) = intent.note_id() {
                known_notes.forget(id);
            }
        }
        WriteAnswer::Renamed(done) => {
            if let IntentKind::RenameTag { from, to } = &intent.kind {
                notices.notify(rename_notice(&intent.key, from, to, done.renamed));
            }
        }
        WriteAnswer::DeletedElsewhere => {
            if let Some(id) = intent.note_id() {
                known_notes.forget(id);
            }
            notices.notify(Notice {
                id: intent.key.clone(),
                text: format!(
                    "“{title}” was saved earlier, and has since been deleted on another device."
                ),
                link: None,
                action: None,
            });
        }
    }
    for editor in page.editors() {
        editor.saved(&intent.key, title, body);
    }
}

/// How many notes a tag rename changed, with the way to the tag's new page.
fn rename_notice(key: &str, from: &str, to: &str, renamed: i64) -> Notice {
    let text = match renamed {
        0 => format!("No note carried #{from}; nothing was renamed."),
        1 => format!("#{from} is now #{to} in 1 note."),
        n => format!("#{from} is now #{to} in {n} notes."),
    };
    // The tag's page folds the name itself.
    Notice {
        id: key.to_owned(),
        text,
        link: (renamed > 0).then(|| (tag_href(to), format!("Open #{to}"))),
        action: None,
    }
}

/// What the person should hear about an edit that was not simply applied.
fn edit_notice(key: &str, title: &str, edit: &EditAnswer) -> Option<Notice> {
    let notice = |text: String, link, action| Notice {
        id: key.to_owned(),
        text,
        link,
        action,
    };
    match (edit.outcome, &edit.note, &edit.copy) {
        (EditOutcome::ConflictCopy, _, Some(copy)) => Some(notice(
            format!(
                "Your edit of “{title}” overlapped with changes made elsewhere, so it was saved as a separate note."
            ),
            Some((format!("/notes/{}", copy.id), "Open the copy".to_owned())),
            None,
        )),
        (EditOutcome::Merged, Some(note), _) => Some(notice(
            format!("Your edit of “{title}” was merged with changes made elsewhere."),
            Some((format!("/notes/{}", note.id), "Open the note".to_owned())),
            None,
        )),
        (EditOutcome::Applied, Some(note), _) if note.trashed_at.is_some() => Some(notice(
            format!("Your edit of “{title}” is saved; the note is in the trash."),
            None,
            Some(NoticeAction::Restore {
                note_id: note.id.clone(),
                title: note.title.clone(),
            }),
        )),
        _ => None,
    }
}

/// Writes an intent this tab holds the lock of, then shows it.
fn persist(page: PageState, intent: SaveIntent) {
    match intent_store::update(&intent) {
        // Refused: the stored copy is as it was and still sendable; the page shows the
        // newer state.
        intent_store::Update::Written | intent_store::Update::NotWritten(_) => {
            page.queue.replace(intent)
        }
        intent_store::Update::Gone => gone_elsewhere(page, &intent.key),
    }
}

/// The intent left storage without this tab: another tab saved it, or it was discarded.
pub fn gone_elsewhere(page: PageState, key: &str) {
    if let Some(intent) = page.queue.intent(key) {
        page.queue.remove(key);
        if finished::is_finished(key) {
            // Saved as this page's person (it was in their part of the storage): they are
            // signed in on this browser again.
            page.connection.someone_else_signed_in.set(false);
            page.connection.session_ended.set(false);
            let (title, body) = intent.text();
            for editor in page.editors() {
                editor.saved(key, title, body);
            }
        }
    }
}

struct PageHooks {
    page: PageState,
    intent: SaveIntent,
}

impl BurstHooks for PageHooks {
    fn is_online(&self) -> bool {
        web_sys::window()
            .map(|w| w.navigator().on_line())
            .unwrap_or(true)
    }

    fn jitter(&mut self) -> f64 {
        0.5 + 0.5 * js_sys::Math::random()
    }

    fn on_event(&mut self, event: BurstEvent) {
        match event {
            BurstEvent::AttemptStarted { .. } => {
                self.intent.attempts += 1;
                self.intent.state = IntentState::Sending;
            }
            BurstEvent::RetryScheduled { delay, outcome, .. } => {
                let at_ms = js_sys::Date::now() + delay.as_millis() as f64;
                self.intent.state = IntentState::Retrying {
                    at_ms,
                    cause: WaitCause::of(&outcome),
                };
            }
        }
        persist(self.page, self.intent.clone());
    }
}
