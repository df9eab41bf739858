#!/usr/bin/env bash
# The release build: server binary (target/release/server) and the site
# (target/site/pkg: wasm, JS, CSS, with brotli and gzip copies), with wasm-opt from
# end2end/node_modules.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/end2end/node_modules/.bin:$PATH"
cargo leptos build --release
node scripts/precompress.mjs target/site/pkg
