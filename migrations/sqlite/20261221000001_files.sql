-- Files in notes (PROTOCOL.md, "Files"). A file is named by the SHA-256 of its bytes and
-- belongs to one person (`scope`): the same bytes from two people are two files, and
-- neither can read the other's. The bytes live here, in chunks, so a file is written in
-- the same transaction as its row (no half file, no orphan after a crash), every replica
-- serves every file, and `server backup` carries them (docs/SELF-HOSTING.md says why).
CREATE TABLE files (
    scope TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    size INTEGER NOT NULL,
    content_type TEXT NOT NULL,
    created_at TEXT NOT NULL,
    -- When the file was last uploaded or last lost a note's reference: a file no note
    -- refers to is swept once this is older than the grace period.
    last_seen_at TEXT NOT NULL,
    PRIMARY KEY (scope, sha256)
);
CREATE INDEX files_by_age ON files (last_seen_at);

-- The bytes, in chunks of at most 256 KiB: a range request reads only its chunks, and
-- no row is larger than a chunk.
CREATE TABLE file_chunks (
    scope TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    idx INTEGER NOT NULL,
    bytes BLOB NOT NULL,
    PRIMARY KEY (scope, sha256, idx),
    FOREIGN KEY (scope, sha256) REFERENCES files (scope, sha256) ON DELETE CASCADE
);

-- Which notes refer to which files (`/files/<sha256>` in any version of the note, kept
-- until the note is purged, so restoring an old version never leaves a broken image). A
-- note may refer to a file not uploaded yet: no foreign key to `files`.
CREATE TABLE file_refs (
    scope TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    note_id TEXT NOT NULL,
    PRIMARY KEY (scope, sha256, note_id)
);
CREATE INDEX file_refs_by_note ON file_refs (note_id);

-- Each person's bytes in files, kept with every insert and sweep: the quota is checked
-- and counted in one statement, so parallel uploads cannot walk past it.
CREATE TABLE file_usage (
    scope TEXT PRIMARY KEY,
    used_bytes INTEGER NOT NULL
);
