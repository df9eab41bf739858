//! Signing out. With writes not yet saved, they stay in this browser, kept for this
//! person, and are sent when they sign in again — so the person is asked first, and the
//! offline copy and the files kept for those notes (`file_store.rs`) stay too. With
//! nothing unsaved, the offline copy of the person's notes and their kept files (unless
//! one added to a draft is still to upload) are deleted before the form goes. Either way
//! the pages and images the service worker kept for the person, and the excerpts of their
//! notes the list keeps in localStorage, go first (the writes do not need them): the next
//! person on this browser finds none of it (issue #60).

use std::time::Duration;

use futures::future::{Either, select};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::{file_store, namespace, notes_cache, offline_copy, service_worker};
use crate::state::PageState;

/// The longest sign-out waits for what it deletes.
const DELETE_WAIT: Duration = Duration::from_secs(2);

/// What of the person's leaves this browser with them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Leaving {
    /// Nothing is unsaved: the worker's pages, the offline copy and the kept files.
    Everything,
    /// Writes wait here for the person: only the worker's pages and images go.
    KeptPagesOnly,
}

/// Asks before signing out with writes not yet saved; then deletes what goes with the
/// person, then signs out.
pub fn confirm_sign_out(event: leptos::ev::SubmitEvent, page: PageState) {
    let unsaved = page.queue.entries.with_untracked(Vec::len);
    if unsaved == 0 {
        forget_then_submit(event, Leaving::Everything);
        return;
    }
    let question = format!(
        "{unsaved} change(s) are not saved yet. They stay in this browser and are sent when you sign in again. Sign out anyway?"
    );
    let go = web_sys::window()
        .and_then(|w| w.confirm_with_message(&question).ok())
        .unwrap_or(true);
    if go {
        forget_then_submit(event, Leaving::KeptPagesOnly);
    } else {
        event.prevent_default();
    }
}

/// Holds the form until what goes is deleted, then sends it. Deleting the copy waits for
/// the other tabs to let go of the database (each closes its connection when asked); a tab
/// that does not in [`DELETE_WAIT`] does not keep the person from signing out — the
/// deletion goes on without the page (and the worker deletes its pages of the person when
/// the sign-in page's answer names nobody). `submit()` fires no submit event, so this runs
/// once.
fn forget_then_submit(event: leptos::ev::SubmitEvent, leaving: Leaving) {
    let (Some(user), Some(form)) = (
        namespace::user(),
        event
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlFormElement>().ok()),
    ) else {
        return;
    };
    event.prevent_default();
    notes_cache::evict();
    leptos::task::spawn_local(async move {
        let deleted = std::pin::pin!(async {
            if let Err(error) = service_worker::forget(&user).await {
                leptos::logging::warn!(
                    "the pages kept for offline could not be deleted: {error:?}"
                );
            }
            if leaving == Leaving::KeptPagesOnly {
                return Ok(());
            }
            // No note waits for a kept file; one whose bytes are still here (to upload,
            // or uploaded for a draft not saved yet) keeps the person's files, as the
            // draft is kept for them. A store that cannot be read is kept too.
            let waiting = file_store::holding_bytes().await.map_or(1, |w| w.len());
            if waiting == 0
                && let Err(error) = file_store::forget(&user).await
            {
                leptos::logging::warn!("the kept files could not be deleted: {error:?}");
            }
            offline_copy::forget(&user).await
        });
        let waited = gloo_timers::future::sleep(DELETE_WAIT);
        if let Either::Left((Err(error), _)) = select(deleted, std::pin::pin!(waited)).await {
            leptos::logging::warn!("the offline copy could not be deleted: {error:?}");
        }
        let _ = form.submit();
    });
}
