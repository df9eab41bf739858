-- oncenote on PostgreSQL: the same tables as on SQLite (migrations/sqlite), in one step.
-- Timestamps are RFC 3339 UTC strings of fixed width, as on SQLite, compared byte by byte
-- (COLLATE "C"), so text order is time order and both backends answer alike. Several
-- server processes may start at once: sqlx runs migrations under an advisory lock.

-- Accounts -----------------------------------------------------------------------------

CREATE TABLE users (
    id TEXT COLLATE "C" PRIMARY KEY,
    username TEXT NOT NULL,
    -- Argon2id, in the PHC string format.
    password_hash TEXT NOT NULL,
    is_admin BOOLEAN NOT NULL DEFAULT FALSE,
    disabled_at TEXT COLLATE "C",
    created_at TEXT COLLATE "C" NOT NULL,
    password_changed_at TEXT COLLATE "C" NOT NULL
);
-- Usernames are unique whatever their ASCII case — as SQLite's COLLATE NOCASE, which folds
-- A–Z only, so both databases take and refuse the same names.
CREATE UNIQUE INDEX users_username_unique ON users
    (translate(username, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'));

-- The first admin is made so by this one row: a second setup (another request, another
-- replica) blocks on the first one's insert and then finds it. The user is inserted after
-- the row in the same transaction, so the reference is checked at commit.
CREATE TABLE setup (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    admin_id TEXT COLLATE "C" NOT NULL REFERENCES users (id) DEFERRABLE INITIALLY DEFERRED,
    done_at TEXT COLLATE "C" NOT NULL
);

CREATE TABLE setup_tokens (
    token_hash TEXT COLLATE "C" PRIMARY KEY,
    created_at TEXT COLLATE "C" NOT NULL
);

CREATE TABLE sessions (
    token_hash TEXT COLLATE "C" PRIMARY KEY,
    user_id TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TEXT COLLATE "C" NOT NULL,
    last_seen_at TEXT COLLATE "C" NOT NULL,
    expires_at TEXT COLLATE "C" NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expires_at ON sessions (expires_at);

CREATE TABLE invitations (
    token_hash TEXT COLLATE "C" PRIMARY KEY,
    created_by TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TEXT COLLATE "C" NOT NULL,
    expires_at TEXT COLLATE "C" NOT NULL,
    used_at TEXT COLLATE "C",
    used_by TEXT COLLATE "C"
);

-- Failed sign-ins per account and per client address: limits hold across replicas.
CREATE TABLE sign_in_limits (
    bucket TEXT COLLATE "C" PRIMARY KEY,
    failures BIGINT NOT NULL,
    window_started_at TEXT COLLATE "C" NOT NULL,
    locked_until TEXT COLLATE "C"
);

-- Notes ----------------------------------------------------------------------------------

CREATE TABLE notes (
    id TEXT COLLATE "C" PRIMARY KEY,
    -- The user the note belongs to ('shared' for notes from before accounts).
    scope TEXT COLLATE "C" NOT NULL,
    -- The key that created the note, and the fingerprint of that request: a late retry
    -- after the key's idempotency row expired still finds its note.
    idempotency_key TEXT COLLATE "C" NOT NULL,
    request_fingerprint TEXT COLLATE "C" NOT NULL,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    written_at TEXT COLLATE "C" NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL,
    updated_at TEXT COLLATE "C" NOT NULL,
    version BIGINT NOT NULL DEFAULT 1,
    trashed_at TEXT COLLATE "C",
    conflict_of TEXT COLLATE "C",
    -- The search document, written by the server with each change of title or body: the
    -- title's words (weight A), the body's words (B) and the CJK bigrams of both (C), cut
    -- and folded by the same code that reads the search box (server/src/search), so a
    -- query and a note agree on what a word is on both databases.
    search TSVECTOR NOT NULL,
    CONSTRAINT notes_scope_key_unique UNIQUE (scope, idempotency_key)
);
CREATE INDEX notes_live ON notes (scope, created_at DESC, id DESC) WHERE trashed_at IS NULL;
CREATE INDEX notes_trash ON notes (scope, trashed_at DESC, id DESC) WHERE trashed_at IS NOT NULL;
CREATE INDEX notes_trash_expiry ON notes (trashed_at) WHERE trashed_at IS NOT NULL;
CREATE INDEX notes_search ON notes USING GIN (search);

CREATE TABLE revisions (
    scope TEXT COLLATE "C" NOT NULL,
    note_id TEXT COLLATE "C" NOT NULL REFERENCES notes (id) ON DELETE CASCADE,
    version BIGINT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('create', 'edit', 'merge', 'trash', 'restore')),
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL,
    idempotency_key TEXT COLLATE "C" NOT NULL,
    request_fingerprint TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (note_id, version),
    CONSTRAINT revisions_scope_key_unique UNIQUE (scope, idempotency_key)
);

CREATE TABLE tombstones (
    scope TEXT COLLATE "C" NOT NULL,
    note_id TEXT COLLATE "C" NOT NULL,
    idempotency_key TEXT COLLATE "C",
    request_fingerprint TEXT COLLATE "C",
    purged_at TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (scope, note_id)
);
CREATE UNIQUE INDEX tombstones_scope_key ON tombstones (scope, idempotency_key)
    WHERE idempotency_key IS NOT NULL;

-- Idempotency ----------------------------------------------------------------------------

-- A write claims its key by inserting this row first in its transaction (with an empty
-- answer); a second request with the key blocks on that uncommitted row, and once the
-- first commits (with its answer written in) it finds the row and replays it.
CREATE TABLE idempotency_keys (
    scope TEXT COLLATE "C" NOT NULL,
    idempotency_key TEXT COLLATE "C" NOT NULL,
    request_fingerprint TEXT COLLATE "C" NOT NULL,
    response_status INTEGER NOT NULL,
    -- The answer's own headers, as a JSON list of [name, value] pairs.
    response_headers TEXT NOT NULL,
    response_body BYTEA NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL,
    expires_at TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (scope, idempotency_key)
);
CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at);
