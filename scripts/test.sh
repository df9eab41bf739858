#!/usr/bin/env bash
# Runs every test: the Rust unit and integration tests, then the browser tests
# (Playwright in headless Chromium against the release server).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)

# Each phase's wall time, printed as it ends and again as a table at the end: the suite
# must stay under 45 minutes on a fresh 2-core machine, and this says where they go.
phase_name="Setup (scripts/setup.sh --test)"
phase_started=$started
phase_times=()
phase() { # phase TITLE: ends the running phase (recording its time), starts the next
  local now; now=$(date +%s)
  phase_times+=("$(printf '%6ss  %s' "$(( now - phase_started ))" "$phase_name")")
  printf '\n(%s: %ss)\n' "$phase_name" "$(( now - phase_started ))"
  phase_name=$1; phase_started=$now
  [[ $1 == Done || $1 == Failed ]] || printf '\n==> %s\n' "$1"
}
report_times() { printf '\nWhere the time went:\n'; printf '  %s\n' "${phase_times[@]}"; }
on_exit() { # a failing run still says where its time went
  local status=$?
  if ((status != 0)); then phase Failed; report_times; fi
  exit "$status"
}
trap on_exit EXIT

scripts/setup.sh --test

phase "Format, the browser's code linted (wasm32), the code's shape"
cargo fmt --all --check
cargo clippy -p app --features hydrate --target wasm32-unknown-unknown --locked -- -D warnings
# The code's shape: no import circles, storage below the domain, no file over 600 lines.
node scripts/check-layout.mjs

# Clippy compiles the workspace's own crates in the tests' build, as `cargo clippy` has it
# check them (its driver and its arguments, `-D warnings`): one pass over the code and its
# dependencies instead of a check and then a build (the check alone took 212 s of a 1,985 s
# run on 2 cores). The tests run with the same settings, so nothing is compiled twice.
clippy_driver=$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver) || {
  echo "clippy-driver is missing: rustup component add clippy (scripts/setup.sh does)" >&2
  exit 1
}
linted=(env RUSTC_WORKSPACE_WRAPPER="$clippy_driver"
  CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__")

phase "Build of the Rust tests and tools, linted by clippy"
# Every target of every crate in one build, the chaos tool among them: `cargo run -p proof`
# would settle features for that crate alone and compile 35 crates again (2 minutes here).
"${linted[@]}" cargo build --workspace --all-targets --locked
phase "Rust tests (SQLite)"
"${linted[@]}" cargo test --workspace --locked

# The server's integration suite again, on PostgreSQL (a database per test, copied from a
# migrated template, dropped after), at ONCENOTE_TEST_PG_URL (default
# postgres://postgres@127.0.0.1:5432/postgres).
pg_url=${ONCENOTE_TEST_PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}
pg_hostport=${pg_url#*://}; pg_hostport=${pg_hostport#*@}; pg_hostport=${pg_hostport%%/*}
pg_host=${pg_hostport%%:*}; pg_port=${pg_hostport##*:}; [[ $pg_port == "$pg_hostport" ]] && pg_port=5432
if (exec 3<>"/dev/tcp/$pg_host/$pg_port") 2>/dev/null; then
  phase "Rust integration tests on PostgreSQL ($pg_host:$pg_port)"
  ONCENOTE_TEST_DATABASE=postgres ONCENOTE_TEST_PG_URL=$pg_url "${linted[@]}" cargo test --locked -p server --test api
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

phase "Release build for the fuzzer, the container, chaos and the browser tests"
scripts/build.sh

phase "API fuzzing: schemathesis driven by GET /api/openapi.json, against the release server"
ONCENOTE_SERVER_BIN=target/release/server scripts/fuzz-api.sh

phase "Backup and restore, as docs/SELF-HOSTING.md describes them"
scripts/backup-restore-test.sh

phase "The container image: built with podman on a debootstrapped Debian 12, run by chroot"
sudo_if_needed=""
[[ $(id -u) -ne 0 ]] && sudo_if_needed="sudo"
$sudo_if_needed env ONCENOTE_TEST_PG_URL="$pg_url" CI="${CI:-}" scripts/container-check.sh

phase "Chaos: 2,000 saves through a faulty proxy (keys expiring under load, some sent by several senders at once), then 2,000 more with 5 server crashes"
target/debug/chaos --intents 2000 --clients 64 --ttl-secs 1 --seed 7
target/debug/chaos --intents 2000 --clients 64 --kills 5 --seed 8

if [[ $postgres_tested == yes ]]; then
  phase "Chaos on PostgreSQL: 1,000 saves over two replicas on one database, with 4 crashes"
  target/debug/chaos --intents 1000 --clients 64 --kills 4 \
    --replicas 2 --postgres "$pg_url" --seed 11
fi

phase "Browser tests (Playwright, headless Chromium)"
(cd end2end && npx playwright test)

phase "Done"
report_times
printf '\nAll tests passed in %ss.\n' "$(( $(date +%s) - started ))"
if [[ $postgres_tested == no ]]; then
  printf 'But the PostgreSQL tests were SKIPPED: PostgreSQL was not reachable.\n' >&2
fi
