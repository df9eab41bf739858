//! The offline shell: the service worker script, rendered for this build.
//!
//! The worker's cache is named after the build, and its script embeds that name, so a new
//! deployment changes the script's bytes; the browser installs the new worker, which
//! precaches the new shell and deletes the old caches. The wasm, JS and CSS have content
//! hashes in their names (cargo-leptos `hash-files`), so an HTML page can only ever load
//! the assets it was built with — from the network or from the cache that stored it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use app::worker_caches;

use crate::http::security_headers;

const TEMPLATE: &str = include_str!("offline/sw.js");

/// What the worker must know about this build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShellBuild {
    /// Names the cache; changes with every build (or `ONCENOTE_BUILD_ID`).
    pub id: String,
    /// Everything the shell needs to open with no network.
    pub precache: Vec<String>,
    /// The stylesheet's path (with its hash), for pages rendered outside Leptos.
    pub stylesheet: String,
}

impl ShellBuild {
    /// Reads the asset hashes cargo-leptos wrote beside the server binary (`hash.txt`).
    /// Without them (a build without hashed files, or the tests) the assets keep their
    /// plain names and the id is `dev`.
    pub fn detect(output_name: &str, id_override: Option<String>) -> Self {
        let hashes = hash_file().and_then(|path| std::fs::read_to_string(path).ok());
        Self::from_hashes(output_name, hashes.as_deref(), id_override)
    }

    fn from_hashes(output_name: &str, hashes: Option<&str>, id_override: Option<String>) -> Self {
        let asset = |kind: &str, ext: &str| {
            let hash = hashes.and_then(|text| {
                text.lines()
                    .filter_map(|line| line.split_once(':'))
                    .find(|(k, _)| k.trim() == kind)
                    .map(|(_, h)| h.trim().to_owned())
            });
            match hash {
                Some(hash) => format!("/pkg/{output_name}.{hash}.{ext}"),
                None => format!("/pkg/{output_name}.{ext}"),
            }
        };
        let id = id_override.unwrap_or_else(|| match hashes {
            Some(text) => hex::encode(&Sha256::digest(text.as_bytes())[..8]),
            None => "dev".to_owned(),
        });
        let stylesheet = asset("css", "css");
        // No page is precached: pages hold a person's notes, and are kept per person as
        // they are opened (see sw.js).
        let mut precache = vec![asset("js", "js"), asset("wasm", "wasm"), stylesheet.clone()];
        precache.extend(
            [
                "/manifest.webmanifest",
                "/favicon.svg",
                "/icons/icon-192.png",
                "/icons/icon-512.png",
            ]
            .map(String::from),
        );
        Self {
            id,
            precache,
            stylesheet,
        }
    }

    /// The worker script for this build.
    pub fn script(&self) -> String {
        let precache = serde_json::to_string(&self.precache).unwrap_or_else(|_| "[]".to_owned());
        let id = serde_json::to_string(&self.id).unwrap_or_else(|_| "\"dev\"".to_owned());
        let policy = serde_json::to_string(&security_headers::page_policy("__NONCE__"))
            .unwrap_or_else(|_| "\"default-src 'none'\"".to_owned());
        let script = TEMPLATE
            .replace("\"__BUILD_ID__\"", &id)
            .replace("[\"__PRECACHE__\"]", &precache)
            .replace("\"__PAGE_POLICY__\"", &policy);
        // The names the page uses too (it deletes a person's caches when they leave), from
        // the one place both read them.
        [
            ("__PAGES_PREFIX__", worker_caches::PAGES_PREFIX),
            ("__FILES_PREFIX__", worker_caches::FILES_PREFIX),
            ("__META_CACHE__", worker_caches::META_CACHE),
            ("__OWNER_ENTRY__", worker_caches::OWNER_ENTRY),
            ("__NOBODY__", worker_caches::NOBODY),
            ("__ASKED_HEADER__", worker_caches::ASKED_HEADER),
            ("__OWNER_HEADER__", app::api::OWNER_HEADER),
            ("__KEEP_HEADER__", worker_caches::KEEP_HEADER),
            ("__KEEP_NEVER__", worker_caches::KEEP_NEVER),
        ]
        .into_iter()
        .fold(script, |script, (placeholder, name)| {
            script.replace(&format!("\"{placeholder}\""), &json_string(name))
        })
    }
}

/// `text` as a JavaScript string literal.
fn json_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

/// Where cargo-leptos writes the asset hashes and leptos reads them: beside the running
/// binary.
pub fn hash_file() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    Some(exe.parent().unwrap_or(Path::new(".")).join("hash.txt"))
}

/// `GET /sw.js`. Never cached by HTTP, so the browser sees a new build at once.
pub async fn service_worker(State(shell): State<Arc<ShellBuild>>) -> Response {
    let mut response = shell.script().into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/javascript; charset=utf-8"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_assets_get_their_hashes_in_the_precache_list() {
        let build = ShellBuild::from_hashes("oncenote", Some("js: aa\nwasm: bb\ncss: cc\n"), None);
        assert!(build.precache.contains(&"/pkg/oncenote.aa.js".to_owned()));
        assert!(build.precache.contains(&"/pkg/oncenote.bb.wasm".to_owned()));
        assert!(build.precache.contains(&"/pkg/oncenote.cc.css".to_owned()));
        assert!(
            !build.precache.contains(&"/".to_owned()),
            "pages are kept per person, not precached"
        );
    }

    #[test]
    fn the_build_id_changes_when_any_asset_changes() {
        let a = ShellBuild::from_hashes("oncenote", Some("js: aa\nwasm: bb\ncss: cc\n"), None);
        let b = ShellBuild::from_hashes("oncenote", Some("js: aa\nwasm: b2\ncss: cc\n"), None);
        assert_ne!(a.id, b.id);
        assert_eq!(a.id.len(), 16);
    }

    #[test]
    fn the_script_embeds_the_build_id_and_the_precache_list() {
        let build = ShellBuild::from_hashes("oncenote", None, Some("v2".into()));
        let script = build.script();
        assert!(script.contains(r#"const BUILD = "v2";"#));
        assert!(script.contains(r#""/pkg/oncenote.wasm""#));
        assert!(script.contains(r#"const PAGES_PREFIX = "oncenote-pages-";"#));
        assert!(script.contains(r#"const KEEP_HEADER = "x-oncenote-keep";"#));
        // Every placeholder is filled in; only the nonce's, which the worker fills in for
        // each shell it writes, is left.
        assert!(!script.replace("__NONCE__", "").contains("__"));
    }
}
