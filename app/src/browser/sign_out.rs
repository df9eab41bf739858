//! Signing out. With writes not yet saved, they stay in this browser, kept for this
//! person, and are sent when they sign in again — so the person is asked first, and the
//! offline copy stays too. With nothing unsaved, the offline copy of the person's notes
//! is deleted before the form goes: the next person on this browser finds none of it.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::{namespace, offline_copy};
use crate::state::PageState;

/// Asks before signing out with writes not yet saved; else deletes the offline copy,
/// then signs out.
pub fn confirm_sign_out(event: leptos::ev::SubmitEvent, page: PageState) {
    let unsaved = page.queue.entries.with_untracked(Vec::len);
    if unsaved == 0 {
        forget_copy_then_submit(event);
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

/// Holds the form until the copy is deleted (deleting waits for the other tabs to let
/// go of the database), then sends it. `submit()` fires no submit event, so this runs
/// once.
fn forget_copy_then_submit(event: leptos::ev::SubmitEvent) {
    let (Some(user), Some(form)) = (
        namespace::user(),
        event
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlFormElement>().ok()),
    ) else {
        return;
    };
    event.prevent_default();
    leptos::task::spawn_local(async move {
        if let Err(error) = offline_copy::forget(&user).await {
            leptos::logging::warn!("the offline copy could not be deleted: {error:?}");
        }
        let _ = form.submit();
    });
}
