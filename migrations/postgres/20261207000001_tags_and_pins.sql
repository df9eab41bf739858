-- Tags and pins (PROTOCOL.md v3); see the SQLite migration of the same name.
ALTER TABLE notes ADD COLUMN pinned BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE notes ADD COLUMN tags TEXT;

CREATE TABLE note_tags (
    scope TEXT COLLATE "C" NOT NULL,
    note_id TEXT COLLATE "C" NOT NULL REFERENCES notes (id) ON DELETE CASCADE,
    tag TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (note_id, tag)
);
CREATE INDEX note_tags_scope_tag ON note_tags (scope, tag);

DROP INDEX notes_live;
CREATE INDEX notes_live ON notes (scope, pinned DESC, created_at DESC, id DESC)
    WHERE trashed_at IS NULL;

CREATE TABLE tag_renames (
    scope TEXT COLLATE "C" NOT NULL,
    idempotency_key TEXT COLLATE "C" NOT NULL,
    request_fingerprint TEXT COLLATE "C" NOT NULL,
    renamed BIGINT NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (scope, idempotency_key)
);

ALTER TABLE revisions DROP CONSTRAINT revisions_kind_check;
ALTER TABLE revisions ADD CONSTRAINT revisions_kind_check
    CHECK (kind IN ('create', 'edit', 'merge', 'trash', 'restore', 'pin', 'unpin', 'tag-rename'));
