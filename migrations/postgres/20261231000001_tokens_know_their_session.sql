-- Each API token remembers the session that made it (the SHA-256 of the session token, as
-- `sessions.token_hash` holds it), so a password change can end the tokens other sessions
-- made: a stolen session that minted a token loses it when its person changes their
-- password (PROTOCOL.md, "API tokens"). Not a foreign key: the session ends long before
-- its tokens do. NULL for a token made before this column existed — no one knows which
-- session made it, so the next password change ends it. 'password-change' for a token
-- kept through one (made by the very session the password was changed from).
ALTER TABLE api_tokens ADD COLUMN made_by TEXT COLLATE "C";
