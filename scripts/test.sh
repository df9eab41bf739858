#!/usr/bin/env bash
# Runs every test: the Rust unit and integration tests, then the browser tests
# (Playwright in headless Chromium against the release server).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)

scripts/setup.sh --test

printf '\n==> Format and lints\n'
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo clippy -p app --features hydrate --target wasm32-unknown-unknown --locked -- -D warnings

printf '\n==> Rust tests\n'
cargo test --workspace --locked

printf '\n==> Release build for the browser tests\n'
scripts/build.sh

printf '\n==> Backup and restore, as docs/SELF-HOSTING.md describes them\n'
scripts/backup-restore-test.sh

printf '\n==> Chaos: 2,000 saves through a faulty proxy (keys expiring under load, some sent by\n    several senders at once), then 2,000 more with 5 server crashes\n'
cargo run --locked --quiet -p proof --bin chaos -- --intents 2000 --clients 64 --ttl-secs 1 --seed 7
cargo run --locked --quiet -p proof --bin chaos -- --intents 2000 --clients 64 --kills 5 --seed 8

printf '\n==> Browser tests (Playwright, headless Chromium)\n'
(cd end2end && npx playwright test)

printf '\nAll tests passed in %ss.\n' "$(( $(date +%s) - started ))"
