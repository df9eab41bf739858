//! A file's name: the SHA-256 of its bytes, from the browser's own `crypto.subtle` (no
//! hashing crate in the wasm). The browser offers it only to secure pages (HTTPS, or
//! localhost), which is how the app is served.

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// The SHA-256 of `blob`'s bytes as 64 lower-case hex digits.
pub async fn sha256(blob: &web_sys::Blob) -> Result<String, String> {
    let subtle = web_sys::window()
        .and_then(|w| w.crypto().ok())
        .map(|c| c.subtle())
        .ok_or_else(|| "this browser cannot hash files here (the page must be HTTPS)".to_owned())?;
    let bytes = JsFuture::from(blob.array_buffer())
        .await
        .map_err(|e| described("the file could not be read", &e))?;
    let bytes: js_sys::Object = bytes.unchecked_into();
    let promise = subtle
        .digest_with_str_and_buffer_source("SHA-256", &bytes)
        .map_err(|e| described("the file could not be hashed", &e))?;
    let digest = JsFuture::from(promise)
        .await
        .map_err(|e| described("the file could not be hashed", &e))?;
    let digest = js_sys::Uint8Array::new(&digest).to_vec();
    Ok(digest.iter().map(|b| format!("{b:02x}")).collect())
}

fn described(what: &str, error: &JsValue) -> String {
    let name = error
        .dyn_ref::<web_sys::DomException>()
        .map(web_sys::DomException::message)
        .unwrap_or_default();
    if name.is_empty() {
        what.to_owned()
    } else {
        format!("{what} ({name})")
    }
}
