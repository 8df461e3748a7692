-- The role CHECK as comparisons instead of an IN list. SQLite checks
-- "role IN ('visitor', 'ai', 'operator')" by building a temporary table on
-- every INSERT: a fifth of the instructions of storing a chat and its reply.
-- Three comparisons accept and refuse exactly the same values. SQLite cannot
-- change a constraint in place, so the table is rebuilt the way its manual
-- describes (copy, drop, rename), with its index and its AUTOINCREMENT
-- counter: a seq is never reused, even one whose message was deleted.

CREATE TABLE messages_new (
	seq             INTEGER PRIMARY KEY AUTOINCREMENT,
	conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
	role            TEXT NOT NULL CHECK (role = 'visitor' OR role = 'ai' OR role = 'operator'),
	text            TEXT NOT NULL,
	operator_name   TEXT NOT NULL DEFAULT '',
	created_at      INTEGER NOT NULL,
	text_folded     TEXT NOT NULL DEFAULT ''
) STRICT;

INSERT INTO messages_new (seq, conversation_id, role, text, operator_name, created_at, text_folded)
SELECT seq, conversation_id, role, text, operator_name, created_at, text_folded FROM messages;

-- The counter of the old table, not the largest seq copied.
DELETE FROM sqlite_sequence WHERE name = 'messages_new';
INSERT INTO sqlite_sequence (name, seq) SELECT 'messages_new', seq FROM sqlite_sequence WHERE name = 'messages';

DROP TABLE messages;
ALTER TABLE messages_new RENAME TO messages;
CREATE INDEX messages_conversation ON messages (conversation_id, seq);
