//! The page's save queue: the editor's draft, the unsaved intents (mirrored in
//! localStorage), and the notes saved during this visit. The decisions are the pure
//! functions of `crate::save`; this file wires them to signals and storage.

use leptos::prelude::*;

use crate::api::{Note, validate_draft};
use crate::save::intent::{IntentState, SaveIntent};
use crate::save::press::{Link, PressDecision, decide_press};

#[derive(Clone, Copy)]
pub struct SaveQueue {
    /// The editor's title.
    pub title: RwSignal<String>,
    /// The editor's body.
    pub body: RwSignal<String>,
    /// A message about the last press (validation, a refused draft).
    pub notice: RwSignal<Option<String>>,
    /// Unsaved intents, oldest first.
    pub intents: RwSignal<Vec<SaveIntent>>,
    /// Notes saved during this visit, newest first.
    pub saved: RwSignal<Vec<Note>>,
    /// The time, ticking each second, for "retrying in N s".
    pub now_ms: RwSignal<f64>,
    /// `navigator.onLine`, kept current by the `online` and `offline` events.
    pub online: RwSignal<bool>,
    link: RwSignal<Option<Link>>,
    // Read by the browser runner only.
    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
    pub(crate) draining: StoredValue<bool>,
    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
    pub(crate) again: StoredValue<bool>,
}

impl Default for SaveQueue {
    fn default() -> Self {
        Self::new()
    }
}

impl SaveQueue {
    pub fn new() -> Self {
        Self {
            title: RwSignal::new(String::new()),
            body: RwSignal::new(String::new()),
            notice: RwSignal::new(None),
            intents: RwSignal::new(Vec::new()),
            saved: RwSignal::new(Vec::new()),
            now_ms: RwSignal::new(0.0),
            online: RwSignal::new(true),
            link: RwSignal::new(None),
            draining: StoredValue::new(false),
            again: StoredValue::new(false),
        }
    }

    /// After hydration: show and resend what an earlier visit left unsaved.
    pub fn start(&self) {
        #[cfg(feature = "hydrate")]
        crate::browser::runner::start(*self);
    }

    /// Sends the queue (a new burst for every unsaved intent, oldest first).
    pub fn drain(&self) {
        #[cfg(feature = "hydrate")]
        crate::browser::runner::drain(*self);
    }

    /// A press of Save (click, Enter, or a second click while the first is sending).
    pub fn press_save(&self) {
        let title = self.title.get_untracked();
        let body = self.body.get_untracked();
        if let Err(error) = validate_draft(&title, &body) {
            self.notice.set(Some(format!("Not saved: {error}.")));
            return;
        }
        self.notice.set(None);
        let link = self.link.get_untracked();
        let linked = link
            .as_ref()
            .and_then(|l| self.find(l.key()).map(|i| (l.clone(), i)));
        match decide_press(linked.as_ref().map(|(l, i)| (l, i)), &title, &body) {
            PressDecision::Reuse => self.drain(),
            PressDecision::RefuseUnchanged(problem) => self.notice.set(Some(format!(
                "The server refused this exact note ({}). Change it, then save.",
                problem.detail
            ))),
            PressDecision::New { replaces } => {
                let intent = SaveIntent::new(
                    uuid::Uuid::new_v4().to_string(),
                    &title,
                    &body,
                    now_rfc3339(),
                );
                let key = intent.key.clone();
                // Stored before the first request can leave: the drain below only
                // starts sending on the next turn of the event loop.
                self.store_new(&intent);
                self.intents.update(|all| all.push(intent));
                if let Some(old) = replaces {
                    self.remove(&old);
                }
                self.link.set(Some(Link::Pressed(key)));
                self.drain();
            }
        }
    }

    /// Loads a failed intent into the editor; the next Save replaces it with a new key.
    pub fn edit(&self, key: &str) {
        if let Some(intent) = self.find(key) {
            self.title.set(intent.title.clone());
            self.body.set(intent.body.clone());
            self.link.set(Some(Link::Editing(key.to_owned())));
            self.notice.set(None);
        }
    }

    /// Links the editor to the unsaved intent with exactly this content, if there is one
    /// (after a reload, the editor's draft may be a note already pressed on).
    pub fn relink_draft(&self, title: &str, body: &str) {
        let pressed = self.intents.with_untracked(|all| {
            all.iter()
                .rev()
                .find(|i| !i.is_failed() && i.matches_draft(title, body))
                .map(|i| i.key.clone())
        });
        if let Some(key) = pressed {
            self.link.set(Some(Link::Pressed(key)));
        }
    }

    /// Drops an intent for good (offered for refused ones).
    pub fn discard(&self, key: &str) {
        self.remove(key);
        if self.link.get_untracked().is_some_and(|l| l.key() == key) {
            self.link.set(None);
        }
    }

    pub fn find(&self, key: &str) -> Option<SaveIntent> {
        self.intents
            .with_untracked(|all| all.iter().find(|i| i.key == key).cloned())
    }

    /// Changes one intent, in the page and in storage. An intent another tab has
    /// finished meanwhile is not brought back: it leaves this page too.
    pub fn update_intent(&self, key: &str, change: impl FnOnce(&mut SaveIntent)) {
        let mut changed = None;
        self.intents.update(|all| {
            if let Some(intent) = all.iter_mut().find(|i| i.key == key) {
                change(intent);
                changed = Some(intent.clone());
            }
        });
        #[cfg(feature = "hydrate")]
        if let Some(intent) = changed
            && !crate::browser::intent_store::update(&intent)
        {
            self.intents.update(|all| all.retain(|i| i.key != key));
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = changed;
    }

    /// Adds notes saved elsewhere (another tab, an earlier visit) that this page lacks.
    pub fn learn_notes(&self, notes: Vec<Note>) {
        let new: Vec<Note> = self.saved.with_untracked(|saved| {
            notes
                .into_iter()
                .filter(|n| !saved.iter().any(|s| s.id == n.id))
                .collect()
        });
        if !new.is_empty() {
            self.saved.update(|saved| saved.extend(new));
        }
    }

    pub fn set_state(&self, key: &str, state: IntentState) {
        self.update_intent(key, |intent| intent.state = state);
    }

    /// The server holds the note: show it as saved, forget the intent, and clear the
    /// editor if it still shows exactly this draft.
    pub fn finish(&self, key: &str, note: Note) {
        let intent = self.find(key);
        self.saved.update(|saved| {
            if !saved.iter().any(|n| n.id == note.id) {
                saved.insert(0, note);
            }
        });
        self.remove(key);
        let still_editing = intent.is_some_and(|i| {
            i.matches_draft(&self.title.get_untracked(), &self.body.get_untracked())
        });
        if self.link.get_untracked().is_some_and(|l| l.key() == key) {
            self.link.set(None);
            if still_editing {
                self.title.set(String::new());
                self.body.set(String::new());
            }
        }
    }

    fn remove(&self, key: &str) {
        self.intents.update(|all| all.retain(|i| i.key != key));
        #[cfg(feature = "hydrate")]
        crate::browser::intent_store::remove(key);
    }

    fn store_new(&self, _intent: &SaveIntent) {
        #[cfg(feature = "hydrate")]
        if let Err(error) = crate::browser::intent_store::insert(_intent) {
            self.notice.set(Some(format!(
                "This browser would not keep the note in local storage ({error}); it is being sent, but a reload before it is saved would lose it."
            )));
        }
    }
}

/// The moment Save was pressed, RFC 3339 in UTC.
fn now_rfc3339() -> String {
    #[cfg(feature = "hydrate")]
    {
        String::from(js_sys::Date::new_0().to_iso_string())
    }
    #[cfg(not(feature = "hydrate"))]
    {
        // Saves happen only in the browser; a native build has no page to press.
        String::from("1970-01-01T00:00:00.000Z")
    }
}
