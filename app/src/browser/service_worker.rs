//! Registers the service worker (`/sw.js`, rendered by the server for each build), so
//! the page opens with no network.

use wasm_bindgen_futures::JsFuture;

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
