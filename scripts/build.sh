#!/usr/bin/env bash
# The release build: server binary (target/release/server) and the site
# (target/site/pkg: wasm, JS, CSS, with brotli and gzip copies), with wasm-opt from
# end2end/node_modules.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/end2end/node_modules/.bin:$PATH"
# The wasm and the server in two processes at once. With hashed file names cargo-leptos
# builds them one after the other (for servers that embed the site in the binary; this one
# reads the site and hash.txt at run time), leaving a core idle through the wasm's
# single-threaded steps (its link-time optimisation, wasm-bindgen, wasm-opt). From a fresh
# clone on 2 cores (2026-12-05): 610 s one after the other, 567 s at once.
cargo leptos build --release --frontend-only &
frontend=$!
# If the server's build fails, the wasm's (cargo-leptos, cargo and rustc under it) stops too.
stop_tree() {
  local child
  for child in $(pgrep -P "$1"); do stop_tree "$child"; done
  kill "$1" 2>/dev/null || true
}
trap 'stop_tree "$frontend"' EXIT
cargo leptos build --release --server-only
wait "$frontend"
trap - EXIT
node scripts/precompress.mjs target/site/pkg
