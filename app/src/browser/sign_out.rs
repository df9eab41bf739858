//! Signing out with writes not yet saved: they stay in this browser, kept for this
//! person, and are sent when they sign in again — so the person is asked first.

use leptos::prelude::*;

use crate::state::PageState;

/// Asks before signing out with writes not yet saved.
pub fn confirm_sign_out(event: leptos::ev::SubmitEvent, page: PageState) {
    let unsaved = page.queue.entries.with_untracked(Vec::len);
    if unsaved == 0 {
        return;
    }
    let question = format!(
        "{unsaved} change(s) are not saved yet. They stay in this browser and are sent when you sign in again. Sign out anyway?"
    );
    let go = web_sys::window()
        .and_then(|w| w.confirm_with_message(&question).ok())
        .unwrap_or(true);
    if !go {
        event.prevent_default();
    }
}
