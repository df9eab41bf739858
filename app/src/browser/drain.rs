//! Sends the queue: one burst per unsaved intent, oldest first, each under its tab lock.
//! Started on page load, on a new Save, on `online`, when the tab is shown again, on
//! Retry now, and by the slow background retry. Every change to an intent is written to
//! storage first and shown after; only the tab holding an intent's lock writes it.

use std::cell::Cell;

use super::fetch_transport::{FetchTransport, TimerClock};
use super::{finished, intent_store, tab_lock};
use crate::save::intent::{IntentState, SaveIntent};
use crate::save::retry_policy::RetryPolicy;
use crate::save::sender::{BurstEnd, BurstEvent, BurstHooks, Sender, describe};
use crate::state::PageState;

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
    let sender = Sender::new(
        FetchTransport::default(),
        TimerClock,
        RetryPolicy::default(),
    );
    loop {
        AGAIN.set(false);
        for key in page.queue.sendable_keys() {
            let burst = async {
                // Read it fresh: another tab may have finished or refused it a moment ago.
                let Some(intent) = intent_store::load(&key) else {
                    return Continue::NextIntent;
                };
                if intent.is_failed() {
                    page.queue.replace(intent);
                    return Continue::NextIntent;
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
        BurstEnd::Saved { note, .. } => {
            // The record first: a tab that sees the intent vanish can then tell "saved"
            // from "discarded". With storage full the record is written once the
            // intent's entry has made room.
            let recorded = finished::record(&intent.key, &note.id);
            intent_store::remove(&intent.key);
            if !recorded {
                finished::record(&intent.key, &note.id);
            }
            page.queue.remove(&intent.key);
            page.queue.add_saved(note);
            let (title, body) = intent.text();
            page.editor.saved(&intent.key, title, body);
            Continue::NextIntent
        }
        BurstEnd::Failed { problem } => {
            intent.state = IntentState::Failed { problem };
            persist(page, intent);
            Continue::NextIntent
        }
        BurstEnd::Waiting { last } => {
            intent.state = IntentState::Waiting {
                reason: format!(
                    "{}; sent again by itself, or now with Retry now",
                    describe(&last)
                ),
            };
            persist(page, intent);
            Continue::StopQueue
        }
        BurstEnd::Offline => {
            intent.state = IntentState::Waiting {
                reason: "offline; sent when the network is back".into(),
            };
            persist(page, intent);
            Continue::StopQueue
        }
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
            let (title, body) = intent.text();
            page.editor.saved(key, title, body);
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
            BurstEvent::RetryScheduled { delay, .. } => {
                let at_ms = js_sys::Date::now() + delay.as_millis() as f64;
                self.intent.state = IntentState::Retrying { at_ms };
            }
        }
        persist(self.page, self.intent.clone());
    }
}
