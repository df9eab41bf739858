-- A search matches only its own person's notes: the full-text index holds each note's
-- scope as one token in a column of its own (`search_scope`), and every search's MATCH
-- requires it. Before, FTS5 walked every person's matches and the scope was checked
-- after, so the time of a search told how often other people's notes held the word.
--
-- The token is 's' and the scope's bytes in hex: one unicode61 token whatever the scope
-- holds (a user id's dashes would cut it into several). It is a generated column, so the
-- index's external content (`notes`) has it too and a rebuild finds it.
ALTER TABLE notes ADD COLUMN search_scope TEXT GENERATED ALWAYS AS ('s' || lower(hex(scope))) VIRTUAL;

DROP TRIGGER notes_fts_insert;
DROP TRIGGER notes_fts_delete;
DROP TRIGGER notes_fts_update;
DROP TABLE notes_fts;

CREATE VIRTUAL TABLE notes_fts USING fts5(
    title, body, cjk, search_scope,
    content = 'notes', content_rowid = 'rowid',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
    INSERT INTO notes_fts (rowid, title, body, cjk, search_scope)
    VALUES (new.rowid, new.title, new.body, coalesce(new.cjk, ''), new.search_scope);
END;

CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
    INSERT INTO notes_fts (notes_fts, rowid, title, body, cjk, search_scope)
    VALUES ('delete', old.rowid, old.title, old.body, coalesce(old.cjk, ''), old.search_scope);
END;

-- The scope changes too: the notes from before accounts go to the first admin at setup.
CREATE TRIGGER notes_fts_update AFTER UPDATE OF title, body, cjk, scope ON notes BEGIN
    INSERT INTO notes_fts (notes_fts, rowid, title, body, cjk, search_scope)
    VALUES ('delete', old.rowid, old.title, old.body, coalesce(old.cjk, ''), old.search_scope);
    INSERT INTO notes_fts (rowid, title, body, cjk, search_scope)
    VALUES (new.rowid, new.title, new.body, coalesce(new.cjk, ''), new.search_scope);
END;

INSERT INTO notes_fts (rowid, title, body, cjk, search_scope)
SELECT rowid, title, body, coalesce(cjk, ''), search_scope FROM notes;
