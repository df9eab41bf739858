//! How this page stands with the world: the network, who is signed in on this browser,
//! whether the browser keeps the offline copy, and the clock that counts down to the next
//! attempt.

use leptos::prelude::*;

/// The page's connection to the server and its person, and the ticking clock.
#[derive(Clone, Copy)]
pub struct Connection {
    /// The time, ticking each second, for "retrying in N s".
    pub now_ms: RwSignal<f64>,
    /// `navigator.onLine`, kept current by the `online` and `offline` events.
    pub online: RwSignal<bool>,
    /// The server refused a write of this page because someone else is signed in on this
    /// browser now (the page's person signed out in another tab, another signed in).
    pub someone_else_signed_in: RwSignal<bool>,
    /// The page's session ended (its person signed out here or on another device, their
    /// password changed): the server refused this page's writes or closed its stream.
    pub session_ended: RwSignal<bool>,
    /// This browser will not keep the offline copy (no IndexedDB, or its storage is
    /// full): the page says so, and offline only the pages opened before are there.
    pub no_offline_copy: RwSignal<bool>,
}

impl Default for Connection {
    fn default() -> Self {
        Self::new()
    }
}

impl Connection {
    pub fn new() -> Self {
        Self {
            now_ms: RwSignal::new(0.0),
            online: RwSignal::new(true),
            someone_else_signed_in: RwSignal::new(false),
            session_ended: RwSignal::new(false),
            no_offline_copy: RwSignal::new(false),
        }
    }
}
