-- Accounts: each person's notes are theirs alone. Every note, revision, tombstone and
-- idempotency row already has a `scope`; from now on the scope is the user's id (the
-- notes from before accounts, in scope 'shared', go to the first admin at setup).

CREATE TABLE users (
    id TEXT PRIMARY KEY NOT NULL,
    username TEXT NOT NULL COLLATE NOCASE,
    -- Argon2id, in the PHC string format (algorithm, parameters, salt and hash).
    password_hash TEXT NOT NULL,
    is_admin INTEGER NOT NULL DEFAULT 0,
    disabled_at TEXT,
    created_at TEXT NOT NULL,
    password_changed_at TEXT NOT NULL,
    CONSTRAINT users_username_unique UNIQUE (username)
);

-- The first admin is made so by this one row: a second setup (another request, another
-- server process) cannot insert it again.
CREATE TABLE setup (
    id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
    admin_id TEXT NOT NULL REFERENCES users (id),
    done_at TEXT NOT NULL
);

-- One-time setup links printed at start while there is no user (SHA-256 of the token).
CREATE TABLE setup_tokens (
    token_hash TEXT PRIMARY KEY NOT NULL,
    created_at TEXT NOT NULL
);

-- Sessions: the cookie holds a random token, the database only its SHA-256.
CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expires_at ON sessions (expires_at);

-- Single-use invitations (SHA-256 of the token).
CREATE TABLE invitations (
    token_hash TEXT PRIMARY KEY NOT NULL,
    created_by TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT,
    used_by TEXT
);

-- Failed sign-ins per account and per client address, so limits hold across processes.
CREATE TABLE sign_in_limits (
    bucket TEXT PRIMARY KEY NOT NULL,
    failures INTEGER NOT NULL,
    window_started_at TEXT NOT NULL,
    locked_until TEXT
);
