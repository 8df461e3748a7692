-- The operator desk's inbox (issue 19): what the widget tells about the
-- visitor's browser, the pages the visitor was on (bounded by the store to
-- store.MaxPageHistory per conversation), and how far each operator has
-- read each conversation (unread counts). All go with their conversation.
CREATE TABLE conversation_visitor (
	conversation_id text COLLATE "C" PRIMARY KEY REFERENCES conversations (id) ON DELETE CASCADE,
	user_agent      text NOT NULL,
	language        text NOT NULL,
	time_zone       text NOT NULL,
	referrer        text NOT NULL
);

CREATE TABLE conversation_pages (
	conversation_id text COLLATE "C" NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
	n               bigint NOT NULL, -- 1, 2, ... in the order seen
	url             text NOT NULL,
	at              timestamptz NOT NULL,
	PRIMARY KEY (conversation_id, n)
);

CREATE TABLE conversation_reads (
	user_id         text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	conversation_id text COLLATE "C" NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
	seq             bigint NOT NULL,
	PRIMARY KEY (user_id, conversation_id)
);
CREATE INDEX conversation_reads_conversation ON conversation_reads (conversation_id);

-- The details panel's first seen and number of conversations.
CREATE INDEX conversations_visitor ON conversations (account_id, visitor_id, created_at);
