//! Sends the queue: one burst per unsaved intent, oldest first, started on page load,
//! on a new Save, on `online`, when the tab becomes visible again, and on Retry now.

use std::time::Duration;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

use super::fetch_transport::{FetchTransport, TimerClock};
use super::intent_store;
use crate::save::intent::IntentState;
use crate::save::retry_policy::RetryPolicy;
use crate::save::sender::{BurstEnd, BurstEvent, BurstHooks, Sender, describe};
use crate::ui::save_queue::SaveQueue;

/// Loads what an earlier visit left unsaved, listens for the page's events, sends.
pub fn start(queue: SaveQueue) {
    queue.intents.set(intent_store::load_all());
    queue.now_ms.set(js_sys::Date::now());
    let _ = set_interval_with_handle(
        move || queue.now_ms.set(js_sys::Date::now()),
        Duration::from_secs(1),
    );
    if let Some(window) = web_sys::window() {
        listen(window.as_ref(), "online", move || drain(queue));
        if let Some(document) = window.document() {
            let doc = document.clone();
            listen(document.as_ref(), "visibilitychange", move || {
                if doc.visibility_state() == web_sys::VisibilityState::Visible {
                    drain(queue);
                }
            });
        }
    }
    drain(queue);
}

fn listen(target: &web_sys::EventTarget, event: &str, handler: impl Fn() + 'static) {
    let closure = Closure::<dyn Fn()>::new(handler);
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
    loop {
        queue.again.set_value(false);
        let keys: Vec<String> = queue.intents.with_untracked(|all| {
            all.iter()
                .filter(|i| !i.is_failed())
                .map(|i| i.key.clone())
                .collect()
        });
        for key in keys {
            let Some(intent) = queue.find(&key).filter(|i| !i.is_failed()) else {
                continue;
            };
            let mut hooks = PageHooks {
                queue,
                key: key.clone(),
            };
            match sender.run_burst(&intent, &mut hooks).await {
                BurstEnd::Saved { note, .. } => queue.finish(&key, note),
                BurstEnd::Failed { problem } => {
                    queue.set_state(&key, IntentState::Failed { problem })
                }
                BurstEnd::Waiting { last } => {
                    hold_all(
                        queue,
                        &format!(
                            "{} — it is sent again when you retry, reload or come back online",
                            describe(&last)
                        ),
                    );
                    break;
                }
                BurstEnd::Offline => {
                    hold_all(queue, "offline; it is sent when the network is back");
                    break;
                }
            }
        }
        if !queue.again.get_value() {
            return;
        }
    }
}

/// The server (or the network) is not answering: every unsent intent waits.
fn hold_all(queue: SaveQueue, reason: &str) {
    let keys: Vec<String> = queue.intents.with_untracked(|all| {
        all.iter()
            .filter(|i| !i.is_failed())
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
