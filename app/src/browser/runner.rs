//! Sends the queue: one burst per unsaved intent, oldest first, started on page load,
//! on a new Save, on `online`, when the tab becomes visible again, and on Retry now.
//! Also wires the page to the browser: drafts, the notes other tabs saved, online state,
//! and the warning before closing a tab with unsaved notes.

use std::time::Duration;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

use super::fetch_transport::{FetchTransport, TimerClock};
use super::{drafts, intent_store, notes_cache, service_worker, tab_lock};
use crate::save::intent::IntentState;
use crate::save::retry_policy::RetryPolicy;
use crate::save::sender::{BurstEnd, BurstEvent, BurstHooks, Sender, describe};
use crate::ui::save_queue::SaveQueue;

/// Runs once, after hydration.
pub fn start(queue: SaveQueue) {
    service_worker::register();
    queue.intents.set(intent_store::load_all());
    queue.learn_notes(notes_cache::load());
    restore_draft(queue);
    queue.now_ms.set(js_sys::Date::now());
    let _ = set_interval_with_handle(
        move || queue.now_ms.set(js_sys::Date::now()),
        Duration::from_secs(1),
    );

    let Some(window) = web_sys::window() else {
        return;
    };
    queue.online.set(window.navigator().on_line());
    listen(window.as_ref(), "online", move |_| {
        queue.online.set(true);
        drain(queue);
    });
    listen(window.as_ref(), "offline", move |_| queue.online.set(false));
    listen(window.as_ref(), "storage", move |event| {
        let key = event
            .dyn_ref::<web_sys::StorageEvent>()
            .and_then(|e| e.key());
        match key.as_deref() {
            Some(k) if intent_store::is_intent_entry(k) => {
                queue.intents.set(intent_store::load_current())
            }
            Some(k) if k == notes_cache::storage_key() => queue.learn_notes(notes_cache::load()),
            // `localStorage.clear()` in another tab (key null): read everything again.
            None => {
                queue.intents.set(intent_store::load_current());
                queue.learn_notes(notes_cache::load());
            }
            _ => {}
        }
    });
    listen(window.as_ref(), "beforeunload", move |event| {
        if queue.intents.with_untracked(|all| !all.is_empty()) {
            // Browsers show their own words; setting returnValue is what asks for it.
            event.prevent_default();
            if let Some(event) = event.dyn_ref::<web_sys::BeforeUnloadEvent>() {
                event.set_return_value("Some notes are not saved yet.");
            }
        }
    });
    if let Some(document) = window.document() {
        let doc = document.clone();
        listen(document.as_ref(), "visibilitychange", move |_| {
            if doc.visibility_state() == web_sys::VisibilityState::Visible {
                drain(queue);
            }
        });
    }
    drain(queue);
}

/// Puts back what was typed before a reload, then keeps every change. A draft that is
/// exactly an unsaved intent is linked to it again, so a second press still reuses its
/// key and its save empties the editor.
fn restore_draft(queue: SaveQueue) {
    if let Some((title, body)) = drafts::load()
        && queue.title.get_untracked().is_empty()
        && queue.body.get_untracked().is_empty()
    {
        queue.title.set(title.clone());
        queue.body.set(body.clone());
        queue.relink_draft(&title, &body);
    }
    Effect::new(move |_| {
        let (title, body) = (queue.title.get(), queue.body.get());
        drafts::keep(&title, &body);
    });
}

fn listen(target: &web_sys::EventTarget, event: &str, handler: impl Fn(web_sys::Event) + 'static) {
    let closure = Closure::<dyn Fn(web_sys::Event)>::new(handler);
    let _ = target.add_event_listener_with_callback(event, closure.as_ref().unchecked_ref());
    // The listeners live as long as the page.
    closure.forget();
}

/// Starts sending unless a run is going; then that run goes round once more.
pub fn drain(queue: SaveQueue) {
    if queue.draining.get_value() {
        queue.again.set_value(true);
        return;
    }
    queue.draining.set_value(true);
    leptos::task::spawn_local(async move {
        run(queue).await;
        queue.draining.set_value(false);
    });
}

async fn run(queue: SaveQueue) {
    let sender = Sender::new(
        FetchTransport::default(),
        TimerClock,
        RetryPolicy::default(),
    );
    let tab = uuid::Uuid::new_v4().to_string();
    loop {
        queue.again.set_value(false);
        let keys: Vec<String> = queue.intents.with_untracked(|all| {
            all.iter()
                .filter(|i| !i.is_failed())
                .map(|i| i.key.clone())
                .collect()
        });
        for key in keys {
            // The outcome is applied while the lock is held, so no other tab can pick up
            // an intent that was just saved but not yet removed.
            let burst = async {
                // Read it fresh: another tab may have saved it a moment ago.
                let intent = intent_store::load(&key).filter(|i| !i.is_failed())?;
                let mut hooks = PageHooks {
                    queue,
                    key: key.clone(),
                    tab: tab.clone(),
                };
                let end = sender.run_burst(&intent, &mut hooks).await;
                Some(apply(queue, &key, end))
            };
            // None: another tab is sending this one, or it is already saved.
            if let Some(Some(Continue::StopQueue)) = tab_lock::exclusively(&tab, &key, burst).await
            {
                break;
            }
        }
        if !queue.again.get_value() {
            return;
        }
    }
}

enum Continue {
    NextIntent,
    StopQueue,
}

/// Records how a burst ended; says whether the rest of the queue should be tried now.
fn apply(queue: SaveQueue, key: &str, end: BurstEnd) -> Continue {
    match end {
        BurstEnd::Saved { note, .. } => queue.finish(key, note),
        BurstEnd::Failed { problem } => queue.set_state(key, IntentState::Failed { problem }),
        BurstEnd::Waiting { last } => {
            let reason = format!(
                "{} — sent again when you retry, reload or come back online",
                describe(&last)
            );
            hold_queued(queue, key, &reason);
            return Continue::StopQueue;
        }
        BurstEnd::Offline => {
            hold_queued(queue, key, "offline; sent when the network is back");
            return Continue::StopQueue;
        }
    }
    Continue::NextIntent
}

/// The server (or the network) is not answering: this intent, and every one still
/// queued in this tab, waits for the next burst. Intents another tab is sending keep
/// the state that tab gives them.
fn hold_queued(queue: SaveQueue, current: &str, reason: &str) {
    let keys: Vec<String> = queue.intents.with_untracked(|all| {
        all.iter()
            .filter(|i| i.key == current || i.state == IntentState::Queued)
            .map(|i| i.key.clone())
            .collect()
    });
    for key in keys {
        queue.set_state(
            &key,
            IntentState::Waiting {
                reason: reason.to_owned(),
            },
        );
    }
}

struct PageHooks {
    queue: SaveQueue,
    key: String,
    tab: String,
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
        tab_lock::renew(&self.tab, &self.key);
        match event {
            BurstEvent::AttemptStarted { .. } => self.queue.update_intent(&self.key, |intent| {
                intent.attempts += 1;
                intent.state = IntentState::Sending;
            }),
            BurstEvent::RetryScheduled { delay, .. } => {
                let at_ms = js_sys::Date::now() + delay.as_millis() as f64;
                self.queue
                    .set_state(&self.key, IntentState::Retrying { at_ms });
            }
        }
    }
}
