-- The operator desk (issue 19): an account's canned replies and the
-- team's private notes on conversations. Notes have a table of their own,
-- never rows of messages, so nothing that reads messages can show them to
-- a visitor.
CREATE TABLE canned_replies (
	id         text COLLATE "C" PRIMARY KEY,
	account_id text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	shortcut   text NOT NULL,
	language   text NOT NULL,
	text       text NOT NULL,
	created_at timestamptz NOT NULL,
	updated_at timestamptz NOT NULL,
	UNIQUE (account_id, shortcut, language)
);

CREATE TABLE conversation_notes (
	seq             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	id              text COLLATE "C" NOT NULL UNIQUE,
	account_id      text COLLATE "C" NOT NULL,
	conversation_id text COLLATE "C" NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
	author_id       text NOT NULL,
	author_name     text NOT NULL,
	text            text NOT NULL,
	created_at      timestamptz NOT NULL
);
CREATE INDEX conversation_notes_conversation ON conversation_notes (conversation_id, seq);
