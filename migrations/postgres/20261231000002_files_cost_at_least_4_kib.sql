-- Each file costs at least 4 KiB of its person's quota (issue #60): a file takes a row, a
-- chunk and a line in every list whatever its bytes, and counting only the bytes let
-- 3,000 three-byte files take 9 KB of quota. 4096 is `app::api::FILE_MIN_CHARGE_BYTES`;
-- the inserts charge it and the sweep gives it back from now on, so the usage is counted
-- again here the same way (one pass over the `files` rows, not their chunks). `size`
-- stays each file's bytes.
INSERT INTO file_usage (scope, used_bytes)
SELECT DISTINCT scope, 0 FROM files
ON CONFLICT (scope) DO NOTHING;

UPDATE file_usage u SET used_bytes = coalesce(
    (SELECT sum(greatest(f.size, 4096)) FROM files f WHERE f.scope = u.scope), 0)::bigint;

-- The list of a person's files, a page at a time: newest first, then by name from the
-- last (`(created_at, sha256) < ($3, $4)` from the page before).
CREATE INDEX files_newest_first ON files (scope, created_at DESC, sha256 DESC);
