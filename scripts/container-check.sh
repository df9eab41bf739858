#!/usr/bin/env bash
# The container image, built and run here without a container engine or a registry:
#   1. a Debian 12 base made by debootstrap from Debian's packages, tagged under the name
#      deploy/container/Containerfile builds FROM (kept between runs);
#   2. the image built by scripts/image.sh --built with podman, from the release build;
#   3. the image's settings (user, volume, port, healthcheck, stop signal, entrypoint)
#      read back from the built image and compared with what the Containerfile says;
#   4. the image's own file system (podman create + podman mount) run with chroot, read-only
#      with a tmpfs at /tmp (as compose runs it), as the image's user, with the image's
#      environment and address (0.0.0.0, on a free port) and a fresh /data made as a new
#      volume would be: the server starts, the image's HEALTHCHECK command says healthy,
#      the setup link from its log makes the admin, a note saved twice under one
#      idempotency key is stored once, SIGTERM stops it cleanly (exit 0), and after a
#      restart on the same /data the note is still there, once; then the same on
#      PostgreSQL when one is reachable (ONCENOTE_TEST_PG_URL; CI=true requires it).
# Its work folder is /var/tmp/oncenote-container-check (ONCENOTE_CONTAINER_CHECK_DIR).
# Needs root (chroot, mount), podman, debootstrap (scripts/setup.sh --test installs them)
# and target/release/server with target/site (scripts/build.sh). About a minute and a half.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)

fail() { printf '\ncontainer-check: FAILED: %s\n' "$*" >&2; exit 1; }
step() { printf '  %s\n' "$*"; }
[[ $(id -u) -eq 0 ]] || fail "needs root (chroot and mount): run it with sudo"
command -v podman >/dev/null || fail "podman is missing (scripts/setup.sh --test installs it)"
for tool in debootstrap jq curl psql; do
  command -v "$tool" >/dev/null || fail "$tool is missing (scripts/setup.sh --test installs it)"
done

# Outside target/: podman's store holds root's files, which a later `cargo clean` run by
# someone else could not remove. The base is kept there between runs.
work=${ONCENOTE_CONTAINER_CHECK_DIR:-/var/tmp/oncenote-container-check}
mkdir -p "$work"
# Podman keeps this check's images in its own store, never touching the machine's.
podman=(podman --root "$work/storage" --runroot "$work/run" --storage-driver overlay)
image=localhost/oncenote:latest
pg_url=${ONCENOTE_TEST_PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}

# --- 1. The base ---------------------------------------------------------------------
# The name the Containerfile builds FROM, without its digest: the digest names Docker Hub's
# bytes, which cannot be had here, so the build is pointed at the same name (--from)
# holding Debian 12 made from Debian's own packages.
from=$(awk '/^FROM / { print $2; exit }' deploy/container/Containerfile)
[[ $from == *@sha256:* ]] || fail "the Containerfile's FROM ($from) is not pinned by digest"
base=${from%@*}
if ! "${podman[@]}" image exists "$base"; then
  step "making the base $base with debootstrap (Debian 12, minbase)"
  rm -rf "$work/base"
  debootstrap --variant=minbase bookworm "$work/base" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" \
    >"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log" >&2; fail "debootstrap"; }
  # What Debian's slim images leave out: package lists and caches, documentation, locales.
  rm -rf "$work/base"/var/lib/apt/lists/* "$work/base"/var/cache/apt/* \
    "$work/base"/usr/share/doc/* "$work/base"/usr/share/man/* "$work/base"/usr/share/locale/*
  tar -C "$work/base" -c . | "${podman[@]}" import --change 'CMD ["bash"]' - "$base" >/dev/null 2>&1 \
    || fail "podman import of the debootstrapped base"
  rm -rf "$work/base"
fi

# --- 2. The image, as users build it ---------------------------------------------------
# RUN steps use chroot isolation: this machine can build but not start containers.
step "building $image with scripts/image.sh --built"
CONTAINER_ENGINE="${podman[*]}" ONCENOTE_IMAGE_BUILD_ARGS="--pull=never --from $base" \
  BUILDAH_ISOLATION=chroot scripts/image.sh --built >"$work/build.log" 2>&1 \
  || { tail -30 "$work/build.log" >&2; fail "the image did not build"; }

# --- 3. Its settings, as the Containerfile says them -------------------------------------
inspected=$("${podman[@]}" image inspect "$image" | jq '.[0]')
expect() { # expect LABEL JQ-EXPRESSION WANTED
  local got
  got=$(jq -c "$2" <<<"$inspected")
  [[ $got == "$3" ]] || fail "the image's $1 is $got, the Containerfile says $3"
}
expect user '.Config.User' '"10001:10001"'
expect volume '.Config.Volumes | keys' '["/data"]'
expect port '.Config.ExposedPorts | keys' '["3000/tcp"]'
expect 'stop signal' '.Config.StopSignal' '"SIGTERM"'
expect entrypoint '.Config.Entrypoint' '["/opt/oncenote/server"]'
expect 'working directory' '.Config.WorkingDir' '"/data"'
expect healthcheck '.Healthcheck.Test' '["CMD","/opt/oncenote/server","healthcheck"]'
expect 'listening address' '.Config.Env | map(select(startswith("LEPTOS_SITE_ADDR="))) | .[0]' '"LEPTOS_SITE_ADDR=0.0.0.0:3000"'
step "image settings: user 10001, VOLUME /data, EXPOSE 3000, HEALTHCHECK, STOPSIGNAL SIGTERM"

# --- 4. Its file system, run -------------------------------------------------------------
# The image's file system is mounted, then bound read-only at $rootfs (compose runs it with
# read_only: true), with what an engine adds: /proc, a tmpfs at /tmp, and a volume at /data.
container=""
root=""
rootfs=$work/rootfs
pid=""
cookies=$work/cookies.txt
unmount_rootfs() { # also what a killed earlier run left mounted
  local mounted
  for mounted in "$rootfs/data" "$rootfs/tmp" "$rootfs/proc" "$rootfs"; do
    while mountpoint -q "$mounted"; do umount "$mounted" || return 0; done
  done
}
cleanup() {
  [[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null || true
  unmount_rootfs
  if [[ -n $container ]]; then
    "${podman[@]}" umount "$container" >/dev/null 2>&1 || true
    "${podman[@]}" rm --force "$container" >/dev/null 2>&1 || true
  fi
  # Earlier builds' images, untagged by this one.
  "${podman[@]}" image prune --force >/dev/null 2>&1 || true
  rm -rf "$work"/data.* "$cookies" "$work"/*.headers
}
trap cleanup EXIT
container=$("${podman[@]}" create "$image")
root=$("${podman[@]}" mount "$container")
unmount_rootfs
mkdir -p "$rootfs"
mount --bind "$root" "$rootfs"
mount -o remount,bind,ro "$rootfs"
mount -t proc proc "$rootfs/proc"
mount -t tmpfs -o mode=1777 tmpfs "$rootfs/tmp"
if /usr/sbin/chroot "$rootfs" /usr/bin/touch /opt/oncenote/written 2>/dev/null; then
  fail "the image's root file system is writable: the check would not show that read-only works"
fi

# The image's environment and user, as a container engine would give them. /data as the
# image made it is what a new named volume starts as (Docker and podman copy its owner
# and mode): the fresh /data of each run gets the same.
mapfile -t image_env < <(jq -r '.Config.Env[]' <<<"$inspected")
uid_gid=$(jq -r '.Config.User' <<<"$inspected")
data_as_made=$(stat -c '%u:%g %a' "$root/data")
[[ $data_as_made == "$uid_gid 700" ]] \
  || fail "the image's /data is $data_as_made: a new volume would not be its user's alone ($uid_gid 700)"
fresh_data() {
  local dir
  dir=$(mktemp -d "$work/data.XXXXXX")
  chown --reference="$root/data" "$dir"
  chmod --reference="$root/data" "$dir"
  mount --bind "$dir" "$rootfs/data"
}
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base_url="http://127.0.0.1:$port"

# The command line that runs a command in the image's file system as its user, in its
# working directory, with its environment, plus the NAME=value arguments before the
# command. The chroot shares this machine's network, so the port moves to a free one;
# the address stays every interface (0.0.0.0), as in the image, so the healthcheck and
# the setup link must find the server on loopback by themselves. Each program execs the
# next, so the server keeps the first one's pid.
image_command() {
  local extra=()
  while [[ $1 == *=* ]]; do extra+=("$1"); shift; done
  command_line=(env -i "${image_env[@]}" "LEPTOS_SITE_ADDR=0.0.0.0:$port" "${extra[@]}"
    /usr/sbin/chroot --userspec="$uid_gid" "$rootfs" /usr/bin/env --chdir=/data "$@")
}
in_image() { image_command "$@"; "${command_line[@]}"; }

log=""
start_server() { # start_server LOG [NAME=value…]
  log=$1; shift
  image_command "$@" /opt/oncenote/server
  "${command_line[@]}" >"$log" 2>&1 &
  pid=$!
  for _ in $(seq 1 150); do
    curl -sf "$base_url/healthz" >/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; fail "the server in the image stopped at start"; }
    sleep 0.2
  done
  cat "$log" >&2
  fail "the server in the image did not answer /healthz within 30 s"
}

stop_server() { # SIGTERM, as `docker stop` sends it; a clean stop exits 0 within 35 s
  local status=0
  kill -TERM "$pid"
  for _ in $(seq 1 350); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && fail "the server did not stop within 35 s of SIGTERM"
  wait "$pid" || status=$?
  pid=""
  [[ $status -eq 0 ]] || { cat "$log" >&2; fail "the server exited $status on SIGTERM, not 0"; }
  grep -q 'shutting down' "$log" || fail "the server's log does not say it shut down"
}

api() { # api METHOD PATH [curl options…]: prints the body, then the status on its own line
  local method=$1 path=$2; shift 2
  curl -s -b "$cookies" -c "$cookies" -X "$method" -H 'Content-Type: application/json' \
    -w '\n%{http_code}' "$@" "$base_url$path"
}
status_of() { tail -n1 <<<"$1"; }
body_of() { sed '$d' <<<"$1"; }

title="saved from inside the image $(date +%s%N)"
count_notes() {
  local answer
  answer=$(api GET /api/notes)
  [[ $(status_of "$answer") == 200 ]] || fail "GET /api/notes answered $(status_of "$answer")"
  body_of "$answer" | jq --arg t "$title" '[.notes[] | select(.title == $t)] | length'
}

exactly_once() { # exactly_once DATABASE-NAME LOG [NAME=value…]: the whole walk on one database
  local name=$1 first_log=$2; shift 2
  rm -f "$cookies"
  start_server "$first_log" "$@"
  step "$name: the server started as uid ${uid_gid%%:*} with a fresh /data"

  local health
  health=$(in_image "$@" /opt/oncenote/server healthcheck) \
    || fail "the image's HEALTHCHECK command says unhealthy: $health"
  step "$name: HEALTHCHECK → $health"

  local link token answer
  grep -q $'\e\[' "$first_log" && fail "the log written to a file has colour codes in it"
  link=$(grep -o 'http[^ ]*/setup?token=[A-Za-z0-9_-]*' "$first_log" | tail -n1)
  [[ $link == "$base_url/setup?token="* ]] || { cat "$first_log" >&2; fail "no setup link for $base_url in the log"; }
  token=${link#*token=}
  answer=$(api POST /api/setup -d "$(jq -nc --arg t "$token" '{token: $t, username: "ann", password: "container check 123"}')")
  [[ $(status_of "$answer") == 20? ]] || fail "the setup link did not make the admin: $answer"
  answer=$(api POST /api/session -d '{"username":"ann","password":"container check 123"}')
  [[ $(status_of "$answer") == 20? ]] || fail "signing in failed: $answer"
  step "$name: the setup link from the log made the admin"

  local key body first second
  key=$(cat /proc/sys/kernel/random/uuid)
  body=$(jq -nc --arg t "$title" --arg w "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
    '{title: $t, body: "one press, sent twice", written_at: $w}')
  first=$(api POST /api/notes -H "Idempotency-Key: $key" -d "$body" -D "$work/first.headers")
  second=$(api POST /api/notes -H "Idempotency-Key: $key" -d "$body" -D "$work/second.headers")
  [[ $(status_of "$first") == 201 ]] || fail "the first save answered $first"
  [[ $(status_of "$second") == 201 ]] || fail "the retried save answered $second"
  grep -qi '^idempotent-replayed: true' "$work/second.headers" || fail "the retry was not a replay"
  [[ $(body_of "$first" | jq -r .id) == $(body_of "$second" | jq -r .id) ]] || fail "the retry answered another note"
  [[ $(count_notes) == 1 ]] || fail "the note saved twice under one key is stored $(count_notes) times"
  step "$name: one note saved twice under one key: stored once, the retry replayed"

  stop_server
  step "$name: SIGTERM stopped it cleanly (exit 0)"
  if in_image "$@" /opt/oncenote/server healthcheck >/dev/null 2>&1; then
    fail "HEALTHCHECK says healthy with the server stopped"
  fi

  start_server "$first_log.again" "$@"
  [[ $(count_notes) == 1 ]] || fail "after a restart the note is there $(count_notes) times"
  answer=$(api POST /api/notes -H "Idempotency-Key: $key" -d "$body" -D "$work/third.headers")
  [[ $(status_of "$answer") == 201 ]] && grep -qi '^idempotent-replayed: true' "$work/third.headers" \
    || fail "the retry after a restart was not replayed: $answer"
  [[ $(count_notes) == 1 ]] || fail "a retry after the restart stored the note again"
  stop_server
  step "$name: restarted on the same data: the note is there once, a late retry replayed"
}

fresh_data
exactly_once SQLite "$work/sqlite.log"
[[ -f $rootfs/data/oncenote.db ]] || fail "the SQLite database is not on the /data volume"
[[ $(stat -c %u:%g "$rootfs/data/oncenote.db") == "$uid_gid" ]] \
  || fail "the database is owned by $(stat -c %u:%g "$rootfs/data/oncenote.db"), not the image's user"
step "SQLite: the database is on /data, owned by $uid_gid, with the root file system read-only"
umount "$rootfs/data"

# PostgreSQL's address, read as scripts/test.sh reads it (5432 when the URL gives none).
pg_hostport=${pg_url#*://}; pg_hostport=${pg_hostport#*@}; pg_hostport=${pg_hostport%%/*}
pg_host=${pg_hostport%%:*}; pg_port=${pg_hostport##*:}; [[ $pg_port == "$pg_hostport" ]] && pg_port=5432
if (exec 3<>"/dev/tcp/$pg_host/$pg_port") 2>/dev/null; then
  database="oncenote_container_check_$$"
  psql -q "$pg_url" -c "CREATE DATABASE $database" >/dev/null || fail "could not make a database at $pg_url"
  trap 'psql -q "$pg_url" -c "DROP DATABASE IF EXISTS $database WITH (FORCE)" >/dev/null 2>&1 || true; cleanup' EXIT
  fresh_data
  exactly_once PostgreSQL "$work/postgres.log" "DATABASE_URL=${pg_url%/*}/$database"
  umount "$rootfs/data"
elif [[ ${CI:-} == true ]]; then
  fail "PostgreSQL is not reachable at $pg_host:$pg_port, and CI must check the image on it"
else
  step "PostgreSQL is not reachable at $pg_host:$pg_port: the image was checked on SQLite only"
fi

printf 'container-check: the image built and ran exactly once in %ss\n' "$(( $(date +%s) - started ))"
