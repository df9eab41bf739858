-- Every accepted write to a note is a revision; notes go to the trash and come back;
-- a note deleted for good leaves a tombstone; notes are searched with FTS5.

ALTER TABLE notes ADD COLUMN trashed_at TEXT;
-- On a conflict copy: the note whose edit overlapped.
ALTER TABLE notes ADD COLUMN conflict_of TEXT;
-- CJK text as bigrams (written by the server with each note; NULL until filled in for
-- notes from before this migration): unicode61 does not split text without spaces.
ALTER TABLE notes ADD COLUMN cjk TEXT;

CREATE TABLE revisions (
    scope TEXT NOT NULL,
    note_id TEXT NOT NULL REFERENCES notes (id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('create', 'edit', 'merge', 'trash', 'restore')),
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at TEXT NOT NULL,
    -- The key of the write that made this revision, and the fingerprint of its request:
    -- a retry after the key's idempotency row expired finds its outcome here.
    idempotency_key TEXT NOT NULL,
    request_fingerprint TEXT NOT NULL,
    PRIMARY KEY (note_id, version),
    CONSTRAINT revisions_scope_key_unique UNIQUE (scope, idempotency_key)
);

INSERT INTO revisions (scope, note_id, version, kind, title, body, created_at,
                       idempotency_key, request_fingerprint)
SELECT scope, id, version, 'create', title, body, created_at, idempotency_key, request_fingerprint
FROM notes;

CREATE TABLE tombstones (
    scope TEXT NOT NULL,
    note_id TEXT NOT NULL,
    -- The key of the delete-for-good (NULL when the trash emptied itself).
    idempotency_key TEXT,
    request_fingerprint TEXT,
    purged_at TEXT NOT NULL,
    PRIMARY KEY (scope, note_id)
);
CREATE UNIQUE INDEX tombstones_scope_key ON tombstones (scope, idempotency_key)
    WHERE idempotency_key IS NOT NULL;

-- The list (notes not in the trash, newest first) and the trash (latest first).
DROP INDEX notes_scope_created_at_id;
CREATE INDEX notes_live ON notes (scope, created_at DESC, id DESC) WHERE trashed_at IS NULL;
CREATE INDEX notes_trash ON notes (scope, trashed_at DESC, id DESC) WHERE trashed_at IS NOT NULL;

-- Full-text search over title, body and the CJK bigrams; the table holds only the index
-- and reads the text from `notes` (external content), kept in step by triggers.
CREATE VIRTUAL TABLE notes_fts USING fts5(
    title, body, cjk,
    content = 'notes', content_rowid = 'rowid',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
    INSERT INTO notes_fts (rowid, title, body, cjk)
    VALUES (new.rowid, new.title, new.body, coalesce(new.cjk, ''));
END;

CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
    INSERT INTO notes_fts (notes_fts, rowid, title, body, cjk)
    VALUES ('delete', old.rowid, old.title, old.body, coalesce(old.cjk, ''));
END;

CREATE TRIGGER notes_fts_update AFTER UPDATE OF title, body, cjk ON notes BEGIN
    INSERT INTO notes_fts (notes_fts, rowid, title, body, cjk)
    VALUES ('delete', old.rowid, old.title, old.body, coalesce(old.cjk, ''));
    INSERT INTO notes_fts (rowid, title, body, cjk)
    VALUES (new.rowid, new.title, new.body, coalesce(new.cjk, ''));
END;

INSERT INTO notes_fts (rowid, title, body, cjk)
SELECT rowid, title, body, '' FROM notes;
