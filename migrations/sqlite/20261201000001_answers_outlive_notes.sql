-- Idempotency rows keep whole answers (status, headers, body) and no longer point at a
-- note: an answer must outlive the note it was about (a delete for good is replayed with
-- its 204 after the note is gone), and writes other than creates have answers too.
-- SQLite cannot drop a constraint, so the table is rebuilt with its rows.

CREATE TABLE idempotency_answers (
    scope TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    -- SHA-256 of the request that used the key, to tell a retry from a reuse.
    request_fingerprint TEXT NOT NULL,
    response_status INTEGER NOT NULL,
    -- The answer's own headers, as a JSON list of [name, value] pairs.
    response_headers TEXT NOT NULL,
    response_body BLOB NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    PRIMARY KEY (scope, idempotency_key)
);

INSERT INTO idempotency_answers
SELECT scope, idempotency_key, request_fingerprint, response_status,
       json_array(json_array('Content-Type', 'application/json'),
                  json_array('Location', '/api/notes/' || note_id)),
       response_body, created_at, expires_at
FROM idempotency_keys;

DROP TABLE idempotency_keys;
ALTER TABLE idempotency_answers RENAME TO idempotency_keys;
CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at);

-- Lists read one scope's notes, newest first.
DROP INDEX notes_created_at_id;
CREATE INDEX notes_scope_created_at_id ON notes (scope, created_at DESC, id DESC);
