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
    /// Reads the asset hashes cargo-leptos wrote beside the server binary (`hash.txt`)
    /// and, for a split build, the chunk manifest in `site_root/pkg`. Without them (a
    /// build without hashed files, or the tests) the assets keep their plain names and
    /// the id is `dev`.
    pub fn detect(output_name: &str, site_root: &Path, id_override: Option<String>) -> Self {
        let hashes = hash_file().and_then(|path| std::fs::read_to_string(path).ok());
        let manifest = hashes
            .as_deref()
            .and_then(|text| hash_of(text, "manifest"))
            .and_then(|hash| {
                let path = site_root
                    .join("pkg")
                    .join(format!("__wasm_split_manifest.{hash}.json"));
                std::fs::read_to_string(path).ok()
            });
        Self::from_hashes(
            output_name,
            hashes.as_deref(),
            manifest.as_deref(),
            id_override,
        )
    }

    fn from_hashes(
        output_name: &str,
        hashes: Option<&str>,
        split_manifest: Option<&str>,
        id_override: Option<String>,
    ) -> Self {
        let asset = |kind: &str, ext: &str| match hashes.and_then(|text| hash_of(text, kind)) {
            Some(hash) => format!("/pkg/{output_name}.{hash}.{ext}"),
            None => format!("/pkg/{output_name}.{ext}"),
        };
        let id = id_override.unwrap_or_else(|| match hashes {
            Some(text) => hex::encode(&Sha256::digest(text.as_bytes())[..8]),
            None => "dev".to_owned(),
        });
        let stylesheet = asset("css", "css");
        // No page is precached: pages hold a person's notes, and are kept per person as
        // they are opened (see sw.js).
        let mut precache = vec![asset("js", "js"), asset("wasm", "wasm"), stylesheet.clone()];
        // A split build's pages after the first are chunks of wasm, loaded by one more
        // script: a page opened offline needs its chunk (after the main js and wasm, which
        // the worker's offline shell looks for first).
        if let Some(split) = hashes.and_then(|text| hash_of(text, "split")) {
            precache.push(format!("/pkg/__wasm_split.{split}.js"));
            precache.extend(chunks(split_manifest.unwrap_or("{}")));
        }
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
        TEMPLATE
            .replace("\"__BUILD_ID__\"", &id)
            .replace("[\"__PRECACHE__\"]", &precache)
            .replace("\"__PAGE_POLICY__\"", &policy)
    }
}

/// The hash `hash.txt` gives for one kind of file (`js: <hash>`, `split: <hash>`, …).
fn hash_of<'a>(hashes: &'a str, kind: &str) -> Option<&'a str> {
    hashes
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(k, _)| k.trim() == kind)
        .map(|(_, hash)| hash.trim())
}

/// Every chunk a split build's manifest names (each page's list of file stems, chunks
/// shared by pages once), as `/pkg/<stem>.wasm`.
fn chunks(manifest: &str) -> Vec<String> {
    let lists: std::collections::BTreeMap<String, Vec<String>> =
        serde_json::from_str(manifest).unwrap_or_default();
    let stems: std::collections::BTreeSet<String> = lists.into_values().flatten().collect();
    stems
        .into_iter()
        .filter(|stem| {
            !stem.is_empty()
                && stem
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        })
        .map(|stem| format!("/pkg/{stem}.wasm"))
        .collect()
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
        let build =
            ShellBuild::from_hashes("oncenote", Some("js: aa\nwasm: bb\ncss: cc\n"), None, None);
        assert!(build.precache.contains(&"/pkg/oncenote.aa.js".to_owned()));
        assert!(build.precache.contains(&"/pkg/oncenote.bb.wasm".to_owned()));
        assert!(build.precache.contains(&"/pkg/oncenote.cc.css".to_owned()));
        assert!(
            !build.precache.contains(&"/".to_owned()),
            "pages are kept per person, not precached"
        );
    }

    #[test]
    fn a_split_build_precaches_its_loader_and_every_chunk_after_the_main_assets() {
        let hashes = "js: aa\nwasm: bb\ncss: cc\nmanifest: mm\nsplit: ss\n";
        let manifest = r#"{"note_route_1":["chunk_1.h1","shared.h3"],"trash_route_2":["chunk_2.h2","shared.h3"]}"#;
        let build = ShellBuild::from_hashes("oncenote", Some(hashes), Some(manifest), None);
        let chunks: Vec<_> = build.precache[3..7].to_vec();
        assert_eq!(
            chunks,
            [
                "/pkg/__wasm_split.ss.js",
                "/pkg/chunk_1.h1.wasm",
                "/pkg/chunk_2.h2.wasm",
                "/pkg/shared.h3.wasm"
            ]
        );
        // The worker's offline shell takes the first js and the first wasm: the main ones.
        assert_eq!(build.precache[0], "/pkg/oncenote.aa.js");
        assert_eq!(build.precache[1], "/pkg/oncenote.bb.wasm");
    }

    #[test]
    fn a_chunk_manifest_cannot_name_a_path_outside_pkg() {
        let hashes = "js: aa\nwasm: bb\ncss: cc\nsplit: ss\n";
        let manifest = r#"{"x":["../../etc/passwd","/abs","ok.h1"]}"#;
        let build = ShellBuild::from_hashes("oncenote", Some(hashes), Some(manifest), None);
        assert!(build.precache.contains(&"/pkg/ok.h1.wasm".to_owned()));
        assert!(
            !build
                .precache
                .iter()
                .any(|p| p.contains("passwd") || p.contains("/abs"))
        );
    }

    #[test]
    fn the_build_id_changes_when_any_asset_changes() {
        let a =
            ShellBuild::from_hashes("oncenote", Some("js: aa\nwasm: bb\ncss: cc\n"), None, None);
        let b =
            ShellBuild::from_hashes("oncenote", Some("js: aa\nwasm: b2\ncss: cc\n"), None, None);
        assert_ne!(a.id, b.id);
        assert_eq!(a.id.len(), 16);
    }

    #[test]
    fn the_script_embeds_the_build_id_and_the_precache_list() {
        let build = ShellBuild::from_hashes("oncenote", None, None, Some("v2".into()));
        let script = build.script();
        assert!(script.contains(r#"const BUILD = "v2";"#));
        assert!(script.contains(r#""/pkg/oncenote.wasm""#));
        // Every placeholder is filled in; only the nonce's, which the worker fills in for
        // each shell it writes, is left.
        assert!(!script.replace("__NONCE__", "").contains("__"));
    }
}
