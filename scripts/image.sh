#!/usr/bin/env bash
# Builds oncenote's container image from this checkout, in one command:
#   scripts/image.sh            the release build (scripts/setup.sh, scripts/build.sh), then
#                               the image localhost/oncenote:latest and :<version>
#   scripts/image.sh --built    the image only, from the release build already in target/
#
# With podman when it is installed, else docker (CONTAINER_ENGINE=docker picks one; it may
# carry options, as "podman --root DIR"). ONCENOTE_IMAGE_BUILD_ARGS adds options to the
# build (scripts/container-check.sh uses it). The file is deploy/container/Containerfile;
# docs/SELF-HOSTING.md ("In a container") says how to run what this makes.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ${1:-} != --built ]]; then
  scripts/setup.sh
  scripts/build.sh
fi

for built in target/release/server target/release/hash.txt target/site/pkg; do
  if [[ ! -e $built ]]; then
    echo "image.sh: $built is missing: run scripts/build.sh (or scripts/image.sh without --built)" >&2
    exit 1
  fi
done

# The server is built here and runs on the image's Debian 12: it must be a Linux program
# that needs no newer C library than Debian 12's (glibc 2.36), or it would not start there.
base_glibc=2.36
command -v objdump >/dev/null || { echo "image.sh: objdump is missing (apt-get install binutils)" >&2; exit 1; }
if ! objdump -f target/release/server 2>/dev/null | grep -q 'file format elf64'; then
  echo "image.sh: target/release/server is not a Linux (ELF) program: build it on Linux" >&2
  exit 1
fi
needs_glibc=$(objdump -T target/release/server | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -Vu | tail -1)
if [[ -z $needs_glibc ]]; then
  echo "image.sh: target/release/server names no glibc version: is it built for glibc (not musl)?" >&2
  exit 1
fi
if [[ $(printf '%s\n%s\n' "$needs_glibc" "$base_glibc" | sort -V | tail -1) != "$base_glibc" ]]; then
  echo "image.sh: target/release/server needs glibc $needs_glibc, and the image's Debian 12 has $base_glibc." >&2
  echo "  Build on Debian 12 (or older), for instance in a debian:bookworm container with Rust." >&2
  exit 1
fi

if [[ -n ${CONTAINER_ENGINE:-} ]]; then
  read -ra engine <<<"$CONTAINER_ENGINE"
elif command -v podman >/dev/null; then
  engine=(podman)
elif command -v docker >/dev/null; then
  engine=(docker)
else
  echo "image.sh: neither podman nor docker is installed (apt-get install podman)" >&2
  exit 1
fi

version=$(awk -F'"' '/^\[workspace.package\]/ { p = 1 } p && /^version/ { print $2; exit }' Cargo.toml)
revision=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
args=(build --file deploy/container/Containerfile
  --tag localhost/oncenote:latest --tag "localhost/oncenote:$version"
  --label org.opencontainers.image.title=oncenote
  --label "org.opencontainers.image.version=$version"
  --label "org.opencontainers.image.revision=$revision")
# Podman writes OCI images by default, and the OCI format has no HEALTHCHECK: ask for
# Docker's, which keeps it (also through podman's `docker` command; Docker ignores it).
[[ ${engine[0]} == podman ]] && args+=(--format docker)
export BUILDAH_FORMAT=docker
read -ra extra <<<"${ONCENOTE_IMAGE_BUILD_ARGS:-}"

printf '\n==> Building localhost/oncenote:%s with %s\n' "$version" "${engine[0]}"
"${engine[@]}" "${args[@]}" "${extra[@]}" .
printf '\nBuilt localhost/oncenote:latest (%s, %s). Run it: docs/SELF-HOSTING.md, "In a container".\n' \
  "$version" "$revision"
