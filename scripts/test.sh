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
# The code's shape: no import circles, storage below the domain, no file over 600 lines.
node scripts/check-layout.mjs

printf '\n==> Rust tests (SQLite)\n'
cargo test --workspace --locked

# The server's integration suite again, on PostgreSQL (a fresh database per test, dropped
# after), at ONCENOTE_TEST_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres).
pg_url=${ONCENOTE_TEST_PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}
pg_hostport=${pg_url#*://}; pg_hostport=${pg_hostport#*@}; pg_hostport=${pg_hostport%%/*}
pg_host=${pg_hostport%%:*}; pg_port=${pg_hostport##*:}; [[ $pg_port == "$pg_hostport" ]] && pg_port=5432
if (exec 3<>"/dev/tcp/$pg_host/$pg_port") 2>/dev/null; then
  printf '\n==> Rust integration tests on PostgreSQL (%s:%s)\n' "$pg_host" "$pg_port"
  ONCENOTE_TEST_DATABASE=postgres ONCENOTE_TEST_PG_URL=$pg_url cargo test --locked -p server --test api
  postgres_tested=yes
elif [[ ${CI:-} == true ]]; then
  printf '\nPostgreSQL is not reachable at %s:%s, and CI must test it: failing.\n' "$pg_host" "$pg_port" >&2
  exit 1
else
  postgres_tested=no
  printf '\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n' >&2
  printf '!!! PostgreSQL is not reachable at %s:%s: the PostgreSQL tests were SKIPPED.\n' "$pg_host" "$pg_port" >&2
  printf '!!! Start it (or set ONCENOTE_TEST_PG_URL) to test the PostgreSQL backend.\n' >&2
  printf '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n' >&2
fi

printf '\n==> Release build for the browser tests\n'
scripts/build.sh

printf '\n==> API fuzzing: schemathesis driven by GET /api/openapi.json, against the release server\n'
ONCENOTE_SERVER_BIN=target/release/server scripts/fuzz-api.sh

printf '\n==> Backup and restore, as docs/SELF-HOSTING.md describes them\n'
scripts/backup-restore-test.sh

printf '\n==> The container image: built with podman on a debootstrapped Debian 12, run by chroot\n'
sudo_if_needed=""
[[ $(id -u) -ne 0 ]] && sudo_if_needed="sudo"
$sudo_if_needed env ONCENOTE_TEST_PG_URL="$pg_url" CI="${CI:-}" scripts/container-check.sh

printf '\n==> Chaos: 2,000 saves through a faulty proxy (keys expiring under load, some sent by\n    several senders at once), then 2,000 more with 5 server crashes\n'
cargo run --locked --quiet -p proof --bin chaos -- --intents 2000 --clients 64 --ttl-secs 1 --seed 7
cargo run --locked --quiet -p proof --bin chaos -- --intents 2000 --clients 64 --kills 5 --seed 8

if [[ $postgres_tested == yes ]]; then
  printf '\n==> Chaos on PostgreSQL: 1,000 saves over two replicas on one database, with 4 crashes\n'
  cargo run --locked --quiet -p proof --bin chaos -- --intents 1000 --clients 64 --kills 4 \
    --replicas 2 --postgres "$pg_url" --seed 11
fi

printf '\n==> Browser tests (Playwright, headless Chromium)\n'
(cd end2end && npx playwright test)

printf '\nAll tests passed in %ss.\n' "$(( $(date +%s) - started ))"
if [[ $postgres_tested == no ]]; then
  printf 'But the PostgreSQL tests were SKIPPED: PostgreSQL was not reachable.\n' >&2
fi
