-- The initial schema. Times are INTEGER unix milliseconds UTC. STRICT tables
-- make SQLite reject values of the wrong type instead of storing them.

CREATE TABLE accounts (
	id                    TEXT PRIMARY KEY,
	-- The store lower-cases emails before writing and before looking them
	-- up, so this plain UNIQUE is a case-insensitive one.
	email                 TEXT NOT NULL UNIQUE,
	name                  TEXT NOT NULL,
	password_hash         TEXT NOT NULL,
	monthly_conversations INTEGER NOT NULL,
	overage_price_cents   INTEGER NOT NULL,
	spend_cap_cents       INTEGER NOT NULL,
	created_at            INTEGER NOT NULL
) STRICT;

CREATE TABLE api_tokens (
	id         TEXT PRIMARY KEY,
	account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	name       TEXT NOT NULL,
	token_hash BLOB NOT NULL UNIQUE,
	created_at INTEGER NOT NULL
) STRICT;

CREATE INDEX api_tokens_account ON api_tokens (account_id);

CREATE TABLE agents (
	id           TEXT PRIMARY KEY,
	account_id   TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	chatbot_name TEXT NOT NULL,
	config       TEXT NOT NULL CHECK (json_valid(config) AND json_type(config) = 'object'),
	created_at   INTEGER NOT NULL,
	updated_at   INTEGER NOT NULL
) STRICT;

-- Agents are listed per account, oldest first (rowid breaks ties).
CREATE INDEX agents_account ON agents (account_id, created_at);

CREATE TABLE knowledge (
	id       TEXT PRIMARY KEY,
	agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
	position INTEGER NOT NULL,
	question TEXT NOT NULL,
	answer   TEXT NOT NULL,
	lang     TEXT NOT NULL DEFAULT '',
	UNIQUE (agent_id, position)
) STRICT;

CREATE TABLE widget_keys (
	key        TEXT PRIMARY KEY,
	agent_id   TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
	account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	active     INTEGER NOT NULL CHECK (active IN (0, 1)),
	created_at INTEGER NOT NULL
) STRICT;

CREATE INDEX widget_keys_agent ON widget_keys (agent_id, created_at);

CREATE TABLE conversations (
	id              TEXT PRIMARY KEY,
	agent_id        TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
	account_id      TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	visitor_id      TEXT NOT NULL,
	page_url        TEXT NOT NULL,
	mode            TEXT NOT NULL CHECK (mode IN ('ai', 'human')),
	created_at      INTEGER NOT NULL,
	last_message_at INTEGER, -- NULL until the first message
	last_message    TEXT NOT NULL DEFAULT ''
) STRICT;

-- The inbox pages newest first by (created_at, id); these match its keyset.
CREATE INDEX conversations_account ON conversations (account_id, created_at DESC, id DESC);
CREATE INDEX conversations_agent ON conversations (agent_id, created_at DESC, id DESC);

CREATE TABLE messages (
	-- AUTOINCREMENT: a seq is never reused, so it stays a safe cursor.
	seq             INTEGER PRIMARY KEY AUTOINCREMENT,
	conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
	role            TEXT NOT NULL CHECK (role IN ('visitor', 'ai', 'operator')),
	text            TEXT NOT NULL,
	operator_name   TEXT NOT NULL DEFAULT '',
	created_at      INTEGER NOT NULL
) STRICT;

CREATE INDEX messages_conversation ON messages (conversation_id, seq);

CREATE TABLE usage (
	account_id            TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	period                TEXT NOT NULL, -- "2006-01", quota.Period
	conversations         INTEGER NOT NULL,
	overage_conversations INTEGER NOT NULL,
	overage_cents         INTEGER NOT NULL,
	PRIMARY KEY (account_id, period)
) STRICT, WITHOUT ROWID;
