-- AI outcomes (issue 20, docs/store.md "Outcomes and questions"): what
-- happened in each conversation, kept on its row by every write that
-- changes it (store.NewMessage.Apply, the handoffs, the visitor's
-- feedback), and the outcome those facts give (domain.Conversation.Outcome),
-- stored so that a report groups by a column and never reads transcripts.
-- The same columns as SQLite's migration 0023.
ALTER TABLE conversations ADD COLUMN asked boolean NOT NULL DEFAULT false;
ALTER TABLE conversations ADD COLUMN answered boolean NOT NULL DEFAULT false;
ALTER TABLE conversations ADD COLUMN handed_at timestamptz;
ALTER TABLE conversations ADD COLUMN first_operator_at timestamptz;
ALTER TABLE conversations ADD COLUMN helpful integer NOT NULL DEFAULT 0 CHECK (helpful >= 0);
ALTER TABLE conversations ADD COLUMN not_helpful integer NOT NULL DEFAULT 0 CHECK (not_helpful >= 0);
ALTER TABLE conversations ADD COLUMN outcome text NOT NULL DEFAULT 'abandoned'
	CHECK (outcome IN ('resolved', 'handed_off', 'unanswered', 'abandoned'));

-- Conversations from before the upgrade, as SQLite's migration 0023 says.
UPDATE conversations c SET
	asked = EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.role = 'visitor'),
	answered = EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.role = 'ai'),
	first_operator_at = (SELECT min(m.created_at) FROM messages m WHERE m.conversation_id = c.id AND m.role = 'operator');
UPDATE conversations SET handed_at = coalesce(waiting_since, first_operator_at, last_activity_at)
WHERE waiting OR mode = 'human' OR assignee_id <> '' OR first_operator_at IS NOT NULL;
UPDATE conversations SET outcome = CASE
	WHEN NOT asked THEN 'abandoned'
	WHEN handed_at IS NOT NULL THEN 'handed_off'
	WHEN misses > 0 OR NOT answered THEN 'unanswered'
	ELSE 'resolved' END;

-- The visitor's thumbs on an AI answer: NULL none.
ALTER TABLE messages ADD COLUMN helpful boolean;

-- The knowledge gaps' questions, as SQLite's migration 0023 says.
CREATE TABLE questions (
	id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	account_id      text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	agent_id        text COLLATE "C" NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
	conversation_id text COLLATE "C" NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
	seq             bigint NOT NULL,
	text            text NOT NULL,
	lang            text NOT NULL,
	reason          text NOT NULL CHECK (reason IN ('unanswered', 'not_helpful')),
	at              timestamptz NOT NULL,
	entry_id        text NOT NULL DEFAULT ''
);
CREATE UNIQUE INDEX questions_reply ON questions (seq);
CREATE INDEX questions_account ON questions (account_id, at);
CREATE INDEX questions_agent ON questions (agent_id, at);
CREATE INDEX questions_conversation ON questions (conversation_id);
