#!/usr/bin/env bash
# The benchmark: builds the release site, a benchmark-only server (with the plain-insert
# baseline route, in target/bench so the normal binary never has it) and the benchmark
# driver, then prints the figures and writes them as JSON to bench-results/ — including the
# page in Chromium (end2end/bench/page.mjs: click → Saved, search, Lighthouse; and
# end2end/bench/fill.mjs: the offline copy's first fill).
#   scripts/bench.sh [--seconds N]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
# Built as cargo-leptos builds the release server (`always-erase-components` in Cargo.toml).
RUSTFLAGS="--cfg erase_components" \
  cargo build --locked --release -p server --features bench-plain-insert --target-dir target/bench
# The benchmark server serves the same hashed site files as the release build.
cp target/release/hash.txt target/bench/release/hash.txt
cargo run --locked --release -p proof --bin bench -- "$@"
