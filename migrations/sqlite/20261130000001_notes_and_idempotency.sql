-- Notes and the idempotency keys that created them (PROTOCOL.md §Server).
-- Timestamps are RFC 3339 UTC strings of fixed width, so text order is time order.

CREATE TABLE notes (
    id TEXT PRIMARY KEY NOT NULL,
    -- Who the key belongs to: one shared scope until accounts exist.
    scope TEXT NOT NULL,
    -- The idempotency key that created this note. It outlives the idempotency row, so a
    -- late retry after expiry still finds its note instead of making a second one.
    idempotency_key TEXT NOT NULL,
    -- SHA-256 of the creating request, to tell a late retry from a reuse of the key.
    request_fingerprint TEXT NOT NULL,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    written_at TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 1,
    CONSTRAINT notes_scope_key_unique UNIQUE (scope, idempotency_key)
);

-- Newest first, with the id as tie-breaker for the cursor.
CREATE INDEX notes_created_at_id ON notes (created_at DESC, id DESC);

CREATE TABLE idempotency_keys (
    scope TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    request_fingerprint TEXT NOT NULL,
    -- The answer is written with the claim itself; the note follows in the same
    -- transaction, so the reference is checked at commit.
    note_id TEXT NOT NULL REFERENCES notes (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    response_status INTEGER NOT NULL,
    response_body BLOB NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    PRIMARY KEY (scope, idempotency_key)
);

CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at);

-- The note's side of the reference: checking it at commit (and cascading a delete)
-- looks rows up by note_id, which must not scan the table.
CREATE INDEX idempotency_keys_note_id ON idempotency_keys (note_id);
