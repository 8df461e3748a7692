-- The inbox search's index (issue 19, docs/store.md "The inbox search"): an
-- FTS5 table of trigrams over every message's folded text. A query of three
-- characters or more is a phrase of its trigrams, so the index answers the
-- same substring question the LIKE scan did without reading every message.
--
-- External content (content = 'messages'): the index keeps the trigrams,
-- not a second copy of the text. case_sensitive 1: the text is folded
-- already (store.Fold, for every language), so the tokenizer must not fold
-- again. columnsize = 0: no per-message token counts, which only ranking
-- (bm25) reads and the inbox never does.
CREATE VIRTUAL TABLE messages_search USING fts5 (
	text_folded,
	content = 'messages',
	content_rowid = 'seq',
	tokenize = 'trigram case_sensitive 1',
	columnsize = 0
);

-- The index trails the messages: a chat's commit does not write it (FTS5
-- writes a segment per transaction, and merges them, which doubled the
-- server's CPU per chat request, docs/benchmarks.md); the store's indexer
-- adds the messages above indexed_seq in large batches, and the search
-- reads the few messages above it directly. 0 here: the indexer works
-- through the messages already stored after the upgrade, a batch at a
-- time, while the search finds them all the same.
CREATE TABLE message_search_state (
	id          INTEGER PRIMARY KEY CHECK (id = 1),
	indexed_seq INTEGER NOT NULL
) STRICT;
INSERT INTO message_search_state (id, indexed_seq) VALUES (1, 0);

-- A message leaves the index with the message, however it goes: the
-- deletes that a conversation's, a visitor's or an account's deletion
-- cascades to run these triggers too. Only a message the index holds
-- (seq up to indexed_seq) has trigrams to take out.
CREATE TRIGGER messages_search_delete AFTER DELETE ON messages
WHEN old.seq <= (SELECT indexed_seq FROM message_search_state) BEGIN
	INSERT INTO messages_search (messages_search, rowid, text_folded) VALUES ('delete', old.seq, old.text_folded);
END;
CREATE TRIGGER messages_search_update AFTER UPDATE OF text_folded ON messages
WHEN old.seq <= (SELECT indexed_seq FROM message_search_state) BEGIN
	INSERT INTO messages_search (messages_search, rowid, text_folded) VALUES ('delete', old.seq, old.text_folded);
	INSERT INTO messages_search (rowid, text_folded) VALUES (new.seq, new.text_folded);
END;
