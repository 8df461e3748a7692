-- The operator desk (issue 19): an account's canned replies and the
-- team's private notes on conversations. Notes have a table of their own,
-- never rows of messages, so nothing that reads messages can show them to
-- a visitor.
CREATE TABLE canned_replies (
	id         TEXT PRIMARY KEY,
	account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	shortcut   TEXT NOT NULL,
	language   TEXT NOT NULL,
	text       TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	UNIQUE (account_id, shortcut, language)
) STRICT;

CREATE TABLE conversation_notes (
	seq             INTEGER PRIMARY KEY AUTOINCREMENT,
	id              TEXT NOT NULL UNIQUE,
	account_id      TEXT NOT NULL,
	conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
	author_id       TEXT NOT NULL,
	author_name     TEXT NOT NULL,
	text            TEXT NOT NULL,
	created_at      INTEGER NOT NULL
) STRICT;
CREATE INDEX conversation_notes_conversation ON conversation_notes (conversation_id, seq);
