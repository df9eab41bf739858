#!/usr/bin/env bash
# Runs oncenote: installs the build tools if missing, builds in release mode, and serves
# http://127.0.0.1:3000 with a SQLite database in ./data/ (created on first start).
# Every setting can be changed by environment variable (see the README).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
export LEPTOS_SITE_ROOT="${LEPTOS_SITE_ROOT:-target/site}"
exec target/release/server
