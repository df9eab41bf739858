//! The one door from the page to the save queue. A press of Save, Edit, Discard and
//! Retry now come in here; in the browser they go on to `browser::commands`, which
//! writes storage first and the signals after. On the server (rendering) nothing is
//! pressed, so each is a no-op there.

use crate::state::PageState;

/// After hydration: load what earlier visits left unsaved and start sending it.
pub fn start(page: PageState) {
    #[cfg(feature = "hydrate")]
    crate::browser::page_events::start(page);
    #[cfg(not(feature = "hydrate"))]
    let _ = page;
}

/// A press of Save (click, Enter, or another click while the first is sending).
pub fn press_save(page: PageState) {
    #[cfg(feature = "hydrate")]
    crate::browser::commands::press_save(page);
    #[cfg(not(feature = "hydrate"))]
    let _ = page;
}

/// Loads a failed intent into the editor; the next Save replaces it with a new key.
pub fn edit(page: PageState, key: &str) {
    #[cfg(feature = "hydrate")]
    crate::browser::commands::edit(page, key);
    #[cfg(not(feature = "hydrate"))]
    let _ = (page, key);
}

/// Drops an unsaved entry for good (offered for refused and damaged ones).
pub fn discard(page: PageState, id: &str) {
    #[cfg(feature = "hydrate")]
    crate::browser::commands::discard(page, id);
    #[cfg(not(feature = "hydrate"))]
    let _ = (page, id);
}

/// Sends the queue now (a new burst for every unsaved intent).
pub fn retry_now(page: PageState) {
    #[cfg(feature = "hydrate")]
    crate::browser::drain::drain(page);
    #[cfg(not(feature = "hydrate"))]
    let _ = page;
}
