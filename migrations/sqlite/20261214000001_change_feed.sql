-- The change feed (PROTOCOL.md, "Changes and live updates"). Every accepted write bumps
-- its person's counter row and leaves, for each note it touched, that note's newest change
-- under the new seq. The counter row is updated inside the write's transaction, so a
-- second writer of the same person waits for the first to commit: seqs grow in commit
-- order and no reader ever sees a gap that a slower transaction fills later (a sequence
-- or an autoincrement hands its numbers out before commit, and would).
CREATE TABLE change_counters (
    scope TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    -- The feed no longer holds the purges up to this seq: a reader behind it starts over.
    compacted_through INTEGER NOT NULL DEFAULT 0
);

-- One row per note: its newest change (older ones are folded into it).
CREATE TABLE changes (
    scope TEXT NOT NULL,
    note_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('upsert', 'purge')),
    changed_at TEXT NOT NULL,
    PRIMARY KEY (scope, note_id)
);
CREATE UNIQUE INDEX changes_in_order ON changes (scope, seq);
CREATE INDEX changes_purged ON changes (changed_at) WHERE kind = 'purge';

-- The notes from before the feed, as if each had just been written, oldest first.
INSERT INTO changes (scope, note_id, seq, kind, changed_at)
SELECT scope, id, ROW_NUMBER() OVER (PARTITION BY scope ORDER BY updated_at, id), 'upsert', updated_at
FROM notes;
INSERT INTO change_counters (scope, seq)
SELECT scope, MAX(seq) FROM changes GROUP BY scope;
