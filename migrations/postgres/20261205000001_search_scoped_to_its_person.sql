-- A search reads only its own person's matches: the full-text index is on the scope and
-- the search document together, and every search asks it for both. Before, a person with
-- many notes of their own was searched by a sequential scan (or the index on `search`
-- alone), which read every person's matches and checked the scope after, so the time of
-- a search told how often other people's notes held the word.
--
-- The scope as a tsvector of its one lexeme, taken whole (no parser), so GIN can index it
-- beside `search` without an extension (btree_gin).
ALTER TABLE notes ADD COLUMN search_scope TSVECTOR
    GENERATED ALWAYS AS (array_to_tsvector(ARRAY[scope::text])) STORED;
CREATE INDEX notes_scoped_search ON notes USING GIN (search_scope, search);
DROP INDEX notes_search;
