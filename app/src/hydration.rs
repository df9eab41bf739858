//! The script that hydrates the page, started only once the page is painted.
//!
//! Leptos's `HydrationScripts` preloads the wasm from the `<head>`, so on a slow
//! connection the 390 KB of wasm share the line with the page itself, and Lighthouse's
//! mobile run put the largest paint at 2.9–3.0 s (first paint 1.0 s). Here nothing is
//! fetched before the page's `load` event and its next frame: the server-rendered page
//! paints first. Before hydration every write form is a real `POST` (a press is never
//! lost), and links are plain links.

use leptos::config::LeptosOptions;
use leptos::nonce::use_nonce;
use leptos::prelude::*;

/// The js and wasm file names without extension: hashed when cargo-leptos wrote its
/// `hash.txt` beside the server binary (the same rule as Leptos's own scripts).
fn file_names(options: &LeptosOptions) -> (String, String) {
    let mut js = options.output_name.to_string();
    let mut wasm = options.output_name.to_string();
    if options.hash_files {
        let hashes = std::env::current_exe()
            .ok()
            .and_then(|exe| exe.parent().map(|dir| dir.join(options.hash_file.as_ref())))
            .and_then(|path| std::fs::read_to_string(path).ok())
            .unwrap_or_default();
        for (file, hash) in hashes
            .lines()
            .filter_map(|line| line.trim().split_once(':'))
        {
            match file {
                "js" => js = format!("{js}.{}", hash.trim()),
                "wasm" => wasm = format!("{wasm}.{}", hash.trim()),
                _ => {}
            }
        }
    } else if option_env!("LEPTOS_OUTPUT_NAME").is_none() {
        wasm.push_str("_bg");
    }
    (js, wasm)
}

/// Loads the app's js and wasm after the page's `load` event and next frame, then
/// hydrates.
#[component]
pub fn HydrateAfterPaint(options: LeptosOptions) -> impl IntoView {
    let (js, wasm) = file_names(&options);
    let pkg = options.site_pkg_dir.to_string();
    let script = format!(
        "(() => {{\
           const hydrate = () => import({js_path:?}).then((app) => \
             app.default({{ module_or_path: {wasm_path:?} }}).then(() => app.hydrate()));\
           const afterPaint = () => requestAnimationFrame(() => setTimeout(hydrate, 0));\
           if (document.readyState === \"complete\") afterPaint();\
           else addEventListener(\"load\", afterPaint, {{ once: true }});\
         }})();",
        js_path = format!("/{pkg}/{js}.js"),
        wasm_path = format!("/{pkg}/{wasm}.wasm"),
    );
    view! { <script type="module" nonce=use_nonce()>{script}</script> }
}
