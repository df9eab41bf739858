-- A search's full-text match yields only the person's live notes: a note in the trash
-- holds another scope token ('t' and the scope's bytes in hex, where a live note holds
-- 's' and the same), so the match leaves it out by itself. Before, every match (up to
-- 5,000 for a common word) was looked up in `notes` to check its trash, and its sort keys
-- read there: about half a broad search's time at 100,000 notes (README, "Benchmarks and
-- the full chaos run").
-- Now only the page's notes are read (storage/sqlite/search.rs).
--
-- Trashing or restoring a note now writes its index row again (the update trigger takes
-- `trashed_at` too), as an edit does.
--
-- The notes in the trash now: their index rows are taken out with the values they were
-- indexed with (the 's' token), then put back with the new one. The rest of the index is
-- untouched, so this takes the time of the trash, not of every note.
INSERT INTO notes_fts (notes_fts, rowid, title, body, cjk, search_scope)
SELECT 'delete', rowid, title, body, coalesce(cjk, ''), search_scope
FROM notes WHERE trashed_at IS NOT NULL;

DROP TRIGGER notes_fts_insert;
DROP TRIGGER notes_fts_delete;
DROP TRIGGER notes_fts_update;

ALTER TABLE notes DROP COLUMN search_scope;
ALTER TABLE notes ADD COLUMN search_scope TEXT GENERATED ALWAYS AS
    ((CASE WHEN trashed_at IS NULL THEN 's' ELSE 't' END) || lower(hex(scope))) VIRTUAL;

CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
    INSERT INTO notes_fts (rowid, title, body, cjk, search_scope)
    VALUES (new.rowid, new.title, new.body, coalesce(new.cjk, ''), new.search_scope);
END;

CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
    INSERT INTO notes_fts (notes_fts, rowid, title, body, cjk, search_scope)
    VALUES ('delete', old.rowid, old.title, old.body, coalesce(old.cjk, ''), old.search_scope);
END;

CREATE TRIGGER notes_fts_update AFTER UPDATE OF title, body, cjk, scope, trashed_at ON notes BEGIN
    INSERT INTO notes_fts (notes_fts, rowid, title, body, cjk, search_scope)
    VALUES ('delete', old.rowid, old.title, old.body, coalesce(old.cjk, ''), old.search_scope);
    INSERT INTO notes_fts (rowid, title, body, cjk, search_scope)
    VALUES (new.rowid, new.title, new.body, coalesce(new.cjk, ''), new.search_scope);
END;

INSERT INTO notes_fts (rowid, title, body, cjk, search_scope)
SELECT rowid, title, body, coalesce(cjk, ''), search_scope
FROM notes WHERE trashed_at IS NOT NULL;
