#!/usr/bin/env bash
# Tests the documented backup and restore procedure ("Backups and restore") against
# the release build (target/release/server, site root target/site — build it first with
# ./scripts/build.sh):
#
#   1. `server check-config` accepts a good environment and refuses DATABASE_URL=mysql://…;
#   2. a server on a fresh database (first admin from ONCENOTE_ADMIN_*) takes three notes
#      and a file (PUT /api/files/{sha256});
#   3. `server backup FILE` copies the database while the server runs, and refuses to
#      overwrite FILE afterwards;
#   4. a fourth note is written after the backup; the server stops on SIGTERM;
#   5. restore as documented: the backup is copied over the database file, its -wal and
#      -shm files removed, and the server started again (without ONCENOTE_ADMIN_*: the
#      admin must come from the backup);
#   6. the session made before the backup still works; signing in works; the notes are
#      exactly the three from before the backup; re-sending a create from before the
#      backup with its Idempotency-Key is answered from the backup (a replay, byte for
#      byte) and stores nothing new; the file is served, byte for byte.
#
# Everything runs on 127.0.0.1 in a temporary folder; every wait is bounded (30 s at most);
# the servers started here are stopped on exit, however the script ends.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=target/release/server
SITE=target/site
PASSWORD='backup test password'

fail() {
	printf 'FAIL  %s\n' "$*" >&2
	exit 1
}
ok() { printf 'ok    %s\n' "$*"; }

[[ -x $BIN ]] || fail "$BIN is missing: build it first with ./scripts/build.sh"
[[ -d $SITE/pkg ]] || fail "$SITE/pkg is missing: build it first with ./scripts/build.sh"
command -v curl >/dev/null || fail "curl is needed"
command -v python3 >/dev/null || fail "python3 is needed (to read JSON)"
command -v setsid >/dev/null || fail "setsid (util-linux) is needed"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/oncenote-backup-test.XXXXXX")
DB="$tmp/oncenote.db"
DB_URL="sqlite://$DB"
pgids=()

# Stops every server this script started (each is the leader of its own process group),
# politely first, then for good; then removes the temporary folder.
cleanup() {
	local status=$? pgid i
	for pgid in "${pgids[@]}"; do
		kill -TERM -- "-$pgid" 2>/dev/null || true
	done
	for pgid in "${pgids[@]}"; do
		for ((i = 0; i < 50; i++)); do
			kill -0 -- "-$pgid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL -- "-$pgid" 2>/dev/null || true
	done
	if ((status != 0)); then
		for log in "$tmp"/server-*.log; do
			[[ -f $log ]] || continue
			printf '\n--- last lines of %s ---\n' "${log##*/}" >&2
			tail -n 25 "$log" >&2 || true
		done
	fi
	rm -rf "$tmp"
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The server's environment: only what this test sets (nothing inherited from the shell,
# such as an ONCENOTE_PUBLIC_URL that would make cookies Secure and unusable over http).
# Used as: env -i "${ENV[@]}" [VAR=value…] command…
ENV=(PATH="$PATH" HOME="${HOME:-/tmp}" LANG=C.UTF-8 DATABASE_URL="$DB_URL"
	LEPTOS_SITE_ROOT="$SITE" RUST_LOG=info)

# Whether process $1 runs (exists and is not a zombie waiting to be reaped).
alive() {
	local state
	state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null) || return 1
	[[ -n $state && $state != Z ]]
}

# A port on 127.0.0.1 nobody listens on, from 3391 up.
free_port() {
	python3 - <<'EOF'
import socket
for port in range(3391, 3491):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            continue
        print(port)
        break
else:
    raise SystemExit("no free port between 3391 and 3490")
EOF
}

# start_server NAME [VAR=value…]: starts the server in its own process group on a free
# port, waits (30 s at most) until /healthz answers; sets PID and BASE.
start_server() {
	local name=$1 port i
	shift
	port=$(free_port)
	# A simple command in the background: env, then setsid, then the server replace one
	# another in the one child process, so $! is the server, which setsid makes the
	# leader of a process group of its own (the script's group is never signalled).
	env -i "${ENV[@]}" LEPTOS_SITE_ADDR="127.0.0.1:$port" "$@" \
		setsid "$BIN" >"$tmp/server-$name.log" 2>&1 &
	PID=$!
	pgids+=("$PID")
	BASE="http://127.0.0.1:$port"
	for ((i = 0; i < 150; i++)); do
		alive "$PID" || fail "the $name server exited at start (log below)"
		if curl -fsS --max-time 2 -o /dev/null "$BASE/healthz" 2>/dev/null; then
			[[ $(awk '{print $5}' "/proc/$PID/stat") == "$PID" ]] ||
				fail "the $name server is not the leader of its own process group"
			ok "the $name server answers on $BASE"
			return
		fi
		sleep 0.2
	done
	fail "the $name server did not answer /healthz within 30 s"
}

# stop_server: SIGTERM, then waits (30 s at most) for a clean exit.
stop_server() {
	local i status pgid kept=()
	kill -TERM "$PID"
	for ((i = 0; i < 300; i++)); do
		alive "$PID" || break
		sleep 0.1
	done
	alive "$PID" && fail "the server did not stop within 30 s of SIGTERM"
	status=0
	wait "$PID" || status=$?
	# Reaped: its id may be reused, so the cleanup must no longer signal it.
	for pgid in "${pgids[@]}"; do
		[[ $pgid == "$PID" ]] || kept+=("$pgid")
	done
	pgids=("${kept[@]}")
	((status == 0)) || fail "the server exited with status $status after SIGTERM"
	ok "the server stopped on SIGTERM (exit 0)"
}

# request JAR METHOD PATH [BODY [HEADER…]]: prints the status; the answer's headers and
# body are in $tmp/headers and $tmp/body.
request() {
	local jar=$1 method=$2 path=$3 body=${4-} args=()
	shift 4 || shift $#
	for header in "$@"; do args+=(-H "$header"); done
	if [[ -n $body ]]; then
		args+=(-H 'Content-Type: application/json' --data-binary "$body")
	fi
	[[ -e $jar ]] || : >"$jar"
	curl -sS --max-time 15 -X "$method" -b "$jar" -c "$jar" \
		-D "$tmp/headers" -o "$tmp/body" -w '%{http_code}' "${args[@]}" "$BASE$path"
}

expect_status() {
	local want=$1 got=$2 what=$3
	[[ $got == "$want" ]] || fail "$what: expected $want, got $got: $(head -c 400 "$tmp/body")"
}

sign_in() {
	local jar=$1 status
	status=$(request "$jar" POST /api/session '{"username":"admin","password":"'"$PASSWORD"'"}')
	expect_status 204 "$status" "sign in as admin"
	grep -q 'oncenote_session' "$jar" || fail "sign in: no session cookie was set"
}

new_key() { cat /proc/sys/kernel/random/uuid; }

# create_note JAR KEY TITLE: POST /api/notes, expects 201; the request body is kept in
# $tmp/request-KEY and the answer's body in $tmp/answer-KEY.
create_note() {
	local jar=$1 key=$2 title=$3 body status
	body=$(printf '{"title":"%s","body":"Written by the backup test.\\nSecond line.","written_at":"%s"}' \
		"$title" "$(date -u +%Y-%m-%dT%H:%M:%SZ)")
	printf '%s' "$body" >"$tmp/request-$key"
	status=$(request "$jar" POST /api/notes "$body" "Idempotency-Key: $key")
	expect_status 201 "$status" "create \"$title\""
	cp "$tmp/body" "$tmp/answer-$key"
}

# The titles of the listed notes (GET /api/notes: NotesPage {notes, next}), sorted, one
# a line; fails if the list has another page.
listed_titles() {
	python3 - "$tmp/body" <<'EOF'
import json, sys
page = json.load(open(sys.argv[1]))
if page.get("next") is not None:
    raise SystemExit("the list has more than one page")
for title in sorted(note["title"] for note in page["notes"]):
    print(title)
EOF
}

expect_notes() {
	local jar=$1 what=$2 want got status
	shift 2
	status=$(request "$jar" GET /api/notes)
	expect_status 200 "$status" "GET /api/notes ($what)"
	want=$(printf '%s\n' "$@" | LC_ALL=C sort)
	got=$(listed_titles) || fail "GET /api/notes ($what): unreadable answer: $(head -c 400 "$tmp/body")"
	[[ $got == "$want" ]] || fail "$what: expected the notes
$want
but the list holds
$got"
	ok "$what: exactly $# notes ($(printf '%s' "$got" | tr '\n' ',' | sed 's/,/, /g'))"
}

# --- 1. check-config -----------------------------------------------------------------
port=$(free_port)
out=$(env -i "${ENV[@]}" LEPTOS_SITE_ADDR="127.0.0.1:$port" timeout 30 "$BIN" check-config 2>&1) ||
	fail "check-config refused a good environment: $out"
ok "check-config accepts the test environment"
status=0
out=$(env -i "${ENV[@]}" LEPTOS_SITE_ADDR="127.0.0.1:$port" DATABASE_URL=mysql://x \
	timeout 30 "$BIN" check-config 2>&1) || status=$?
((status != 0)) || fail "check-config accepted DATABASE_URL=mysql://x: $out"
((status != 124)) || fail "check-config did not finish within 30 s"
grep -q DATABASE_URL <<<"$out" || fail "check-config refused mysql://x without naming DATABASE_URL: $out"
ok "check-config refuses DATABASE_URL=mysql://x (exit $status, names DATABASE_URL)"

# --- 2. a server with three notes --------------------------------------------------
start_server original ONCENOTE_ADMIN_USERNAME=admin ONCENOTE_ADMIN_PASSWORD="$PASSWORD"
jar1="$tmp/cookies-before"
sign_in "$jar1"
ok "signed in as admin (204, session cookie)"
kept_key=$(new_key)
create_note "$jar1" "$kept_key" "Before backup 1"
create_note "$jar1" "$(new_key)" "Before backup 2"
create_note "$jar1" "$(new_key)" "Before backup 3"
ok "three notes created (201 each)"
# A file, uploaded before the backup: the bytes live in the database, so the backup holds it.
printf 'GIF89a a file for the backup test %s' "$(new_key)" >"$tmp/file"
file_sha=$(sha256sum "$tmp/file" | cut -d' ' -f1)
status=$(curl -sS --max-time 15 -X PUT -b "$jar1" -H 'Content-Type: image/gif' \
	--data-binary "@$tmp/file" -o "$tmp/body" -w '%{http_code}' "$BASE/api/files/$file_sha")
expect_status 201 "$status" "upload a file"
ok "a file uploaded (201)"

# --- 3. the online backup ---------------------------------------------------------------
backup="$tmp/backup.db"
out=$(env -i "${ENV[@]}" timeout 30 "$BIN" backup "$backup" 2>&1) || fail "server backup failed: $out"
[[ -s $backup ]] || fail "server backup said it worked but wrote no file: $out"
ok "server backup wrote $(stat -c %s "$backup") bytes while the server ran: $(tail -n 1 <<<"$out")"
grep -q ' 1 files (' <<<"$out" || fail "server backup does not count the file: $out"
sum=$(sha256sum "$backup")
status=0
out=$(env -i "${ENV[@]}" timeout 30 "$BIN" backup "$backup" 2>&1) || status=$?
((status != 0)) || fail "server backup overwrote an existing file: $out"
((status != 124)) || fail "server backup did not finish within 30 s"
[[ $(sha256sum "$backup") == "$sum" ]] || fail "server backup changed an existing file"
ok "server backup refuses to overwrite an existing file (exit $status, file unchanged)"

# --- 4. a write after the backup, then stop ---------------------------------------------
create_note "$jar1" "$(new_key)" "After backup"
expect_notes "$jar1" "before the restore" "Before backup 1" "Before backup 2" "Before backup 3" "After backup"
stop_server

# --- 5. restore, as documented: the server stopped, the backup copied over the database
#        file, no -wal or -shm file left beside it (the docs set the old files aside; here
#        they are simply replaced), the server started ---------------------------------
cp "$backup" "$DB"
rm -f "$DB-wal" "$DB-shm"
ok "restored: backup copied over $(basename "$DB"), -wal and -shm removed"
start_server restored
grep -q 'setup?token=' "$tmp/server-restored.log" &&
	fail "the restored server asks for a setup: the backup lost the admin account"

# --- 6. what the restored server holds --------------------------------------------------
status=$(request "$jar1" GET /api/notes)
expect_status 200 "$status" "GET /api/notes with the session cookie from before the backup"
ok "the session from before the backup still works (200)"
jar2="$tmp/cookies-after"
sign_in "$jar2"
ok "signed in again on the restored server (204)"
expect_notes "$jar2" "after the restore" "Before backup 1" "Before backup 2" "Before backup 3"

status=$(request "$jar2" POST /api/notes "$(cat "$tmp/request-$kept_key")" "Idempotency-Key: $kept_key")
# A key whose answer is stored is answered with that answer — its status (201), headers
# and body byte for byte — plus Idempotent-Replayed: true (PROTOCOL.md). A 200 would
# mean the key's stored answer was missing from the backup (the late-retry path).
expect_status 201 "$status" "re-sending a create from before the backup"
grep -qi '^idempotent-replayed: *true' "$tmp/headers" ||
	fail "re-sent create: no 'Idempotent-Replayed: true' header: $(tr -d '\r' <"$tmp/headers")"
cmp -s "$tmp/body" "$tmp/answer-$kept_key" ||
	fail "re-sent create: the replayed body differs from the first answer"
ok "the re-sent create is a replay (201, Idempotent-Replayed: true, same body byte for byte)"
expect_notes "$jar2" "after the replay" "Before backup 1" "Before backup 2" "Before backup 3"
status=$(request "$jar2" GET "/files/$file_sha")
expect_status 200 "$status" "GET the file uploaded before the backup"
cmp -s "$tmp/body" "$tmp/file" || fail "the restored file differs from the one uploaded"
ok "the file uploaded before the backup is served after the restore (200, same bytes)"

stop_server
printf '\nBackup and restore: every check passed.\n'
