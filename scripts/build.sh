#!/usr/bin/env bash
# The release build: server binary (target/release/server) and the site
# (target/site/pkg: wasm, JS, CSS, with brotli and gzip copies), with wasm-opt from
# end2end/node_modules.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/end2end/node_modules/.bin:$PATH"
# The wasm and the server in two processes at once. With hashed file names cargo-leptos
# builds them one after the other (for servers that embed the site in the binary; this one
# reads the site and hash.txt at run time), and compiling the app and the server leaves a
# core idle for minutes while rustc's single-threaded front end runs: 610 s one after the
# other on 2 cores, measured 2026-12-05.
cargo leptos build --release --frontend-only &
frontend=$!
trap 'kill "$frontend" 2>/dev/null || true' EXIT
cargo leptos build --release --server-only
wait "$frontend"
trap - EXIT
node scripts/precompress.mjs target/site/pkg
