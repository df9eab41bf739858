-- The search documents are folded by one rule now (server/src/search/fold.rs), the
-- snippet's: final sigma is σ and spacing vowel signs stay, where the documents written
-- before folded them otherwise, so the query and those documents could disagree. The
-- notes whose text is not all ASCII (the only ones that fold differently) are listed
-- here; the server makes their documents again when it starts, and empties the list.
CREATE TABLE search_refold (
    note_id TEXT COLLATE "C" PRIMARY KEY
);
INSERT INTO search_refold (note_id)
SELECT id FROM notes WHERE title ~ '[^\x01-\x7f]' OR body ~ '[^\x01-\x7f]';
