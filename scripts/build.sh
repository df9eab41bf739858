#!/usr/bin/env bash
# The release build: server binary (target/release/server) and the site
# (target/site/pkg: wasm, JS, CSS, with brotli and gzip copies), with wasm-opt from
# end2end/node_modules. `--split`: every page but the home page is a chunk of wasm of
# its own (app/src/lazy_pages.rs); the app's wasm needs it (it imports the chunk loader).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/end2end/node_modules/.bin:$PATH"
cargo leptos build --release --split
node scripts/precompress.mjs target/site/pkg
