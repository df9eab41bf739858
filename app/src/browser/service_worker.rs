//! Registers the service worker (`/sw.js`, rendered by the server for each build), so
//! the page opens with no network; and deletes what it keeps of a person when they leave.

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::worker_caches::{
    ASKED_HEADER, META_CACHE, NOBODY, OWNER_ENTRY, files_cache, pages_cache,
};

pub fn register() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let navigator = window.navigator();
    // Absent outside secure contexts (plain http to a host other than localhost).
    let supported = js_sys::Reflect::has(&navigator, &"serviceWorker".into()).unwrap_or(false);
    if !supported {
        return;
    }
    let container = navigator.service_worker();
    leptos::task::spawn_local(async move {
        if let Err(error) = JsFuture::from(container.register("/sw.js")).await {
            leptos::logging::warn!("the offline shell is not available: {error:?}");
        }
    });
}

/// Deletes the pages and images the worker kept for `user`, and has it forget that they
/// were the last signed in here (unless someone else has signed in since), so that offline
/// it serves nothing of theirs: at sign-out, and when the page learns the session ended
/// elsewhere — the worker deletes them too when a page answer names someone else, but with
/// the session ended elsewhere no page answer may come before the browser goes offline
/// (issue #60). Their unsaved writes (localStorage) are not touched.
pub async fn forget(user: &str) -> Result<(), JsValue> {
    let Some(window) = web_sys::window() else {
        return Ok(());
    };
    // Absent outside secure contexts, as the worker is.
    if !js_sys::Reflect::has(&window, &"caches".into()).unwrap_or(false) {
        return Ok(());
    }
    let caches = window.caches()?;
    for name in [pages_cache(user), files_cache(user)] {
        JsFuture::from(caches.delete(&name)).await?;
    }
    // Opening the worker's cache would make it: only read one it made.
    if !JsFuture::from(caches.has(META_CACHE)).await?.is_truthy() {
        return Ok(());
    }
    let meta: web_sys::Cache = JsFuture::from(caches.open(META_CACHE))
        .await?
        .unchecked_into();
    let remembered = JsFuture::from(meta.match_with_str(OWNER_ENTRY)).await?;
    let Some(entry) = remembered.dyn_ref::<web_sys::Response>() else {
        return Ok(());
    };
    let owner = JsFuture::from(entry.text()?).await?.as_string();
    if owner.as_deref() == Some(user) {
        // Stamped now: an answer for the person that was asked for before they left is
        // older, and the worker does not bring them back for it.
        let init = web_sys::ResponseInit::new();
        let headers = web_sys::Headers::new()?;
        headers.set(ASKED_HEADER, &js_sys::Date::now().to_string())?;
        init.set_headers(&headers);
        let nobody = web_sys::Response::new_with_opt_str_and_init(Some(NOBODY), &init)?;
        JsFuture::from(meta.put_with_str(OWNER_ENTRY, &nobody)).await?;
    }
    Ok(())
}
