-- Tags and pins (PROTOCOL.md v3). A note's tags are found in its text by the server; the
-- `tags` column keeps them one per line for reading a note, `note_tags` one row per tag
-- for finding and counting. `tags` is NULL until the server's first start after this
-- migration has found them (the server does it before it serves).
ALTER TABLE notes ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
ALTER TABLE notes ADD COLUMN tags TEXT;

CREATE TABLE note_tags (
    scope TEXT NOT NULL,
    note_id TEXT NOT NULL REFERENCES notes (id) ON DELETE CASCADE,
    tag TEXT NOT NULL,
    PRIMARY KEY (note_id, tag)
);
CREATE INDEX note_tags_scope_tag ON note_tags (scope, tag);

-- Pinned notes list first; the list walks (pinned, created_at, id) newest first.
DROP INDEX notes_live;
CREATE INDEX notes_live ON notes (scope, pinned DESC, created_at DESC, id DESC)
    WHERE trashed_at IS NULL;

-- A rename's outcome, kept past its key's idempotency row (like a revision is for an
-- edit), so a rename retried late renames nothing twice.
CREATE TABLE tag_renames (
    scope TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    request_fingerprint TEXT NOT NULL,
    renamed INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (scope, idempotency_key)
);

-- Revisions gain the kinds pin, unpin and tag-rename. SQLite cannot change a CHECK, so
-- the table is made again with the same rows.
CREATE TABLE revisions_v3 (
    scope TEXT NOT NULL,
    note_id TEXT NOT NULL REFERENCES notes (id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('create', 'edit', 'merge', 'trash', 'restore',
                                       'pin', 'unpin', 'tag-rename')),
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    request_fingerprint TEXT NOT NULL,
    PRIMARY KEY (note_id, version),
    CONSTRAINT revisions_scope_key_unique UNIQUE (scope, idempotency_key)
);
INSERT INTO revisions_v3 (scope, note_id, version, kind, title, body, created_at,
                          idempotency_key, request_fingerprint)
SELECT scope, note_id, version, kind, title, body, created_at, idempotency_key,
       request_fingerprint
FROM revisions;
DROP TABLE revisions;
ALTER TABLE revisions_v3 RENAME TO revisions;
