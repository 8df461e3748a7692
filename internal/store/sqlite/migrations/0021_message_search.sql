-- The inbox search's index (issue 19, docs/store.md "The inbox search"): an
-- FTS5 table of trigrams over every message's folded text. A query of three
-- characters or more is a phrase of its trigrams, so the index answers the
-- same substring question the LIKE scan did without reading every message.
--
-- External content (content = 'messages'): the index keeps the trigrams,
-- not a second copy of the text. case_sensitive 1: the text is folded
-- already (store.Fold, for every language), so the tokenizer must not fold
-- again. columnsize = 0: no per-message token counts, which only ranking
-- (bm25) reads and the inbox never does; one write less per message.
CREATE VIRTUAL TABLE messages_search USING fts5 (
	text_folded,
	content = 'messages',
	content_rowid = 'seq',
	tokenize = 'trigram case_sensitive 1',
	columnsize = 0
);
INSERT INTO messages_search (messages_search) VALUES ('rebuild');

-- Triggers keep the index in step with every way a message comes and goes:
-- the chat's hot inserts, and the deletes that a conversation's, a
-- visitor's or an account's deletion cascades to (SQLite runs a child
-- table's triggers for ON DELETE CASCADE too).
CREATE TRIGGER messages_search_insert AFTER INSERT ON messages BEGIN
	INSERT INTO messages_search (rowid, text_folded) VALUES (new.seq, new.text_folded);
END;
CREATE TRIGGER messages_search_delete AFTER DELETE ON messages BEGIN
	INSERT INTO messages_search (messages_search, rowid, text_folded) VALUES ('delete', old.seq, old.text_folded);
END;
CREATE TRIGGER messages_search_update AFTER UPDATE OF text_folded ON messages BEGIN
	INSERT INTO messages_search (messages_search, rowid, text_folded) VALUES ('delete', old.seq, old.text_folded);
	INSERT INTO messages_search (rowid, text_folded) VALUES (new.seq, new.text_folded);
END;
