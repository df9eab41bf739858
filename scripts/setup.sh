#!/usr/bin/env bash
# Installs what building and testing oncenote needs, skipping whatever is already there.
#   scripts/setup.sh          tools to build and run the app
#   scripts/setup.sh --test   the same, plus Debian's Chromium for the browser tests, podman,
#                             debootstrap and jq for the container image's check, and
#                             schemathesis (the API fuzzer, scripts/fuzz-api.sh) in tools/.venv
# Needs: Rust (rustup), Node 20+ with npm, Python 3.9+ with venv (for the fuzzer only), and
# apt (for make, if missing, and the test tools).
set -euo pipefail
cd "$(dirname "$0")/.."

want_browser=false
[ "${1:-}" = "--test" ] && want_browser=true

step() { printf '\n==> %s\n' "$*"; }

# The versions cargo-leptos and wasm-bindgen must have (see BUILD notes in the README).
CARGO_LEPTOS_VERSION=0.3.11
# The API fuzzer driven by GET /api/openapi.json (scripts/fuzz-api.sh), from PyPI.
SCHEMATHESIS_VERSION=4.32.5
SCHEMATHESIS_VENV=tools/.venv
WASM_BINDGEN_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)

# make: jemalloc, the server's allocator, is built from C with configure and make (a C
# compiler is there already: Rust links with it, and SQLite is built from C too).
if ! command -v make >/dev/null; then
  step "Installing Debian's make (jemalloc's build runs it)"
  sudo_if_needed=""
  [ "$(id -u)" -ne 0 ] && sudo_if_needed="sudo"
  $sudo_if_needed apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo_if_needed apt-get install -y make
fi

# Format and lints (rustup's default profile has them; its minimal one does not).
for component in rustfmt clippy; do
  if ! rustup component list --installed | grep -q "^$component"; then
    step "Adding the $component component"
    rustup component add "$component"
  fi
done

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  step "Adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

if ! cargo leptos --version >/dev/null 2>&1; then
  step "Installing cargo-leptos $CARGO_LEPTOS_VERSION (about 12 minutes on 2 cores, once)"
  # --ignore-rust-version: its lock file pins a crate that declares a newer Rust than it needs.
  cargo install --locked --ignore-rust-version cargo-leptos --version "$CARGO_LEPTOS_VERSION"
fi

if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
  step "Installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (must equal the crate in Cargo.lock; about 2 minutes)"
  # Not --locked: its lock file pins a crate version the registry no longer serves.
  cargo install --force wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

# npm packages: Playwright, and binaryen's wasm-opt for the release build (Debian's
# binaryen is too old and silently breaks the wasm).
if [ ! -x end2end/node_modules/.bin/wasm-opt ] || [ end2end/package-lock.json -nt end2end/node_modules/.package-lock.json ]; then
  step "Installing npm packages (end2end/)"
  (cd end2end && npm ci --no-audit --no-fund)
fi

# Debian packages for the tests: Chromium for the browser tests; podman, debootstrap, jq,
# curl and psql for the container image's check (scripts/container-check.sh).
if $want_browser; then
  packages=()
  [ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || packages+=(chromium)
  for tool in podman debootstrap jq curl; do
    command -v "$tool" >/dev/null || packages+=("$tool")
  done
  command -v psql >/dev/null || packages+=(postgresql-client)
  if [ ${#packages[@]} -gt 0 ]; then
    step "Installing Debian's ${packages[*]} for the tests"
    sudo_if_needed=""
    [ "$(id -u)" -ne 0 ] && sudo_if_needed="sudo"
    $sudo_if_needed apt-get update
    DEBIAN_FRONTEND=noninteractive $sudo_if_needed apt-get install -y "${packages[@]}"
  fi
fi

if $want_browser && [ "$("$SCHEMATHESIS_VENV/bin/schemathesis" --version 2>/dev/null | awk '{print $NF}')" != "$SCHEMATHESIS_VERSION" ]; then
  step "Installing schemathesis $SCHEMATHESIS_VERSION into $SCHEMATHESIS_VENV (the API fuzzer)"
  python3 -m venv "$SCHEMATHESIS_VENV"
  "$SCHEMATHESIS_VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi
