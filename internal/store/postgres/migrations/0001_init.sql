-- The whole schema of a new PostgreSQL store: what SQLite's migrations
-- 0001-0003 built, in PostgreSQL's own types.
--
-- Times are timestamptz. The store writes them truncated to the millisecond
-- (the precision the contract promises) and reads them back in UTC.
--
-- Ids and the columns referencing them are COLLATE "C": the inbox pages by
-- (created_at, id), and a locale collation would order ids differently from
-- the byte order the contract (and Go's string comparison) uses.
--
-- Tables listed oldest first carry ord, an identity that follows insertion:
-- PostgreSQL has no rowid to break ties between rows of the same millisecond.

CREATE TABLE accounts (
	id                    text COLLATE "C" PRIMARY KEY,
	-- The store lower-cases emails before writing and before looking them
	-- up, so this plain UNIQUE is a case-insensitive one.
	email                 text NOT NULL UNIQUE,
	name                  text NOT NULL,
	password_hash         text NOT NULL,
	monthly_conversations bigint NOT NULL,
	overage_price_cents   bigint NOT NULL,
	spend_cap_cents       bigint NOT NULL,
	created_at            timestamptz NOT NULL
);

CREATE TABLE api_tokens (
	id         text COLLATE "C" PRIMARY KEY,
	account_id text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	name       text NOT NULL,
	token_hash bytea NOT NULL UNIQUE, -- SHA-256 of the token, never the token
	created_at timestamptz NOT NULL,
	ord        bigint GENERATED ALWAYS AS IDENTITY
);

CREATE INDEX api_tokens_account ON api_tokens (account_id, created_at, ord);

CREATE TABLE agents (
	id           text COLLATE "C" PRIMARY KEY,
	account_id   text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	chatbot_name text NOT NULL,
	-- text, not jsonb: jsonb reorders keys and respaces, and the contract
	-- returns the compact JSON that was stored. The cast to json only
	-- validates (json keeps the text as it is, \u0000 escapes included).
	config       text NOT NULL CHECK (json_typeof(config::json) = 'object'),
	created_at   timestamptz NOT NULL,
	updated_at   timestamptz NOT NULL,
	ord          bigint GENERATED ALWAYS AS IDENTITY
);

CREATE INDEX agents_account ON agents (account_id, created_at, ord);

CREATE TABLE knowledge (
	id       text COLLATE "C" PRIMARY KEY,
	agent_id text COLLATE "C" NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
	position integer NOT NULL,
	kind     text NOT NULL DEFAULT 'qa' CHECK (kind IN ('qa', 'document')),
	question text NOT NULL,
	answer   text NOT NULL,
	title    text NOT NULL DEFAULT '',
	text     text NOT NULL DEFAULT '',
	lang     text NOT NULL DEFAULT '',
	UNIQUE (agent_id, position)
);

CREATE TABLE widget_keys (
	key        text COLLATE "C" PRIMARY KEY,
	agent_id   text COLLATE "C" NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
	account_id text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	active     boolean NOT NULL,
	created_at timestamptz NOT NULL,
	ord        bigint GENERATED ALWAYS AS IDENTITY
);

CREATE INDEX widget_keys_agent ON widget_keys (agent_id, created_at, ord);

CREATE TABLE conversations (
	id              text COLLATE "C" PRIMARY KEY,
	agent_id        text COLLATE "C" NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
	account_id      text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	visitor_id      text NOT NULL,
	page_url        text NOT NULL,
	mode            text NOT NULL CHECK (mode IN ('ai', 'human')),
	created_at      timestamptz NOT NULL,
	last_message_at timestamptz, -- NULL until the first message
	last_message    text NOT NULL DEFAULT '',
	-- The "needs a human" queue: the visitor asked for one, or the agent
	-- missed twice in a row (misses counts consecutive unanswered replies).
	waiting         boolean NOT NULL DEFAULT false,
	misses          integer NOT NULL DEFAULT 0 CHECK (misses >= 0),
	-- The operator handling it in human mode; '' when the AI handles it or
	-- it was taken over through the API. No foreign key on purpose: the
	-- name stays readable after the user is deleted.
	assignee_id     text COLLATE "C" NOT NULL DEFAULT '',
	assignee_name   text NOT NULL DEFAULT ''
);

-- The inbox pages newest first by (created_at, id); these match its keyset.
CREATE INDEX conversations_account ON conversations (account_id, created_at DESC, id DESC);
CREATE INDEX conversations_agent ON conversations (agent_id, created_at DESC, id DESC);
CREATE INDEX conversations_waiting ON conversations (account_id, waiting, created_at DESC, id DESC);

CREATE TABLE messages (
	-- An identity never hands out a value twice (not even after a
	-- rollback), so a seq stays a safe cursor.
	seq             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	conversation_id text COLLATE "C" NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
	role            text NOT NULL CHECK (role IN ('visitor', 'ai', 'operator')),
	text            text NOT NULL,
	-- text with Unicode case folded by the store (fold in search.go); the
	-- inbox search matches against it. lower() would depend on the
	-- database's locale and folds nothing but ASCII under C.
	text_folded     text NOT NULL,
	operator_name   text NOT NULL DEFAULT '',
	created_at      timestamptz NOT NULL
);

CREATE INDEX messages_conversation ON messages (conversation_id, seq);

CREATE TABLE usage (
	account_id            text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	period                text NOT NULL, -- "2006-01", quota.Period
	conversations         bigint NOT NULL,
	overage_conversations bigint NOT NULL,
	overage_cents         bigint NOT NULL,
	PRIMARY KEY (account_id, period)
);

CREATE TABLE users (
	id            text COLLATE "C" PRIMARY KEY,
	account_id    text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	-- Lower-cased by the store, like accounts.email, so UNIQUE is a
	-- case-insensitive constraint across the whole instance.
	email         text NOT NULL UNIQUE,
	name          text NOT NULL,
	password_hash text NOT NULL,
	role          text NOT NULL CHECK (role IN ('owner', 'operator')),
	created_at    timestamptz NOT NULL,
	ord           bigint GENERATED ALWAYS AS IDENTITY
);

CREATE INDEX users_account ON users (account_id, created_at, ord);

-- Only the SHA-256 of a session token is stored; a leaked database does not
-- let anyone sign in.
CREATE TABLE sessions (
	token_hash bytea PRIMARY KEY,
	user_id    text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	created_at timestamptz NOT NULL,
	expires_at timestamptz NOT NULL
);

-- For ON DELETE CASCADE and sign-out-everywhere (by user) and for the lazy
-- cleanup of expired sessions (by expiry).
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expiry ON sessions (expires_at);
