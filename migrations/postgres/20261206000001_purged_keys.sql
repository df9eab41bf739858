-- What a delete for good must remember: every key that wrote to the note (its create, its
-- edits and moves), so a retry of one of them that comes after its idempotency row
-- expired is answered "deleted elsewhere" instead of making the note again. Kept for
-- ONCENOTE_TOMBSTONE_DAYS after the purge, like the tombstone itself.
CREATE TABLE purged_keys (
    scope TEXT COLLATE "C" NOT NULL,
    idempotency_key TEXT COLLATE "C" NOT NULL,
    note_id TEXT COLLATE "C" NOT NULL,
    kind TEXT COLLATE "C" NOT NULL,
    request_fingerprint TEXT COLLATE "C" NOT NULL,
    purged_at TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (scope, idempotency_key)
);
CREATE INDEX purged_keys_purged_at ON purged_keys (purged_at);
CREATE INDEX tombstones_purged_at ON tombstones (purged_at);
