-- Personal access tokens for scripts (PROTOCOL.md, "API tokens"). The token itself is
-- shown once, when it is made; the database keeps only its SHA-256 (`digest`), so a copy
-- of the database (a backup) holds no usable token. A person's tokens go with them.
CREATE TABLE api_tokens (
    id TEXT COLLATE "C" PRIMARY KEY,
    user_id TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    digest TEXT COLLATE "C" NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL,
    -- Written at most once a minute per token, not at every request.
    last_used_at TEXT COLLATE "C",
    CONSTRAINT api_tokens_digest_unique UNIQUE (digest)
);
-- A person's list, newest first, and the count the cap per person is checked against.
CREATE INDEX api_tokens_user ON api_tokens (user_id, created_at);
