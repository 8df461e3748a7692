-- The operator desk's inbox (issue 19): what the widget tells about the
-- visitor's browser, the pages the visitor was on (bounded by the store to
-- store.MaxPageHistory per conversation), and how far each operator has
-- read each conversation (unread counts). All go with their conversation.
CREATE TABLE conversation_visitor (
	conversation_id TEXT PRIMARY KEY REFERENCES conversations (id) ON DELETE CASCADE,
	user_agent      TEXT NOT NULL,
	language        TEXT NOT NULL,
	time_zone       TEXT NOT NULL,
	referrer        TEXT NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE conversation_pages (
	conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
	n               INTEGER NOT NULL, -- 1, 2, ... in the order seen
	url             TEXT NOT NULL,
	at              INTEGER NOT NULL, -- unix milliseconds
	PRIMARY KEY (conversation_id, n)
) STRICT, WITHOUT ROWID;

CREATE TABLE conversation_reads (
	user_id         TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
	seq             INTEGER NOT NULL,
	PRIMARY KEY (user_id, conversation_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX conversation_reads_conversation ON conversation_reads (conversation_id);

-- The details panel's first seen and number of conversations.
CREATE INDEX conversations_visitor ON conversations (account_id, visitor_id, created_at);
