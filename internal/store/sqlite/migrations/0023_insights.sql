-- AI outcomes (issue 20, docs/store.md "Outcomes and questions"): what
-- happened in each conversation, kept on its row by every write that
-- changes it (store.NewMessage.Apply, the handoffs, the visitor's
-- feedback), and the outcome those facts give (domain.Conversation.Outcome),
-- stored so that a report groups by a column and never reads transcripts.
--   asked, answered    a visitor message / an AI reply that answered is stored
--   handed_at          a person was first asked for or took over (NULL: never)
--   first_operator_at  an operator first wrote (NULL: never)
--   helpful, not_helpful  the visitor's thumbs on the AI's answers, as they stand
ALTER TABLE conversations ADD COLUMN asked INTEGER NOT NULL DEFAULT 0 CHECK (asked IN (0, 1));
ALTER TABLE conversations ADD COLUMN answered INTEGER NOT NULL DEFAULT 0 CHECK (answered IN (0, 1));
ALTER TABLE conversations ADD COLUMN handed_at INTEGER;
ALTER TABLE conversations ADD COLUMN first_operator_at INTEGER;
ALTER TABLE conversations ADD COLUMN helpful INTEGER NOT NULL DEFAULT 0 CHECK (helpful >= 0);
ALTER TABLE conversations ADD COLUMN not_helpful INTEGER NOT NULL DEFAULT 0 CHECK (not_helpful >= 0);
ALTER TABLE conversations ADD COLUMN outcome TEXT NOT NULL DEFAULT 'abandoned'
	CHECK (outcome IN ('resolved', 'handed_off', 'unanswered', 'abandoned'));

-- The conversations from before the upgrade, as well as their transcripts
-- tell: whether an old AI reply answered was not recorded, so any AI reply
-- counts as answered (their misses still say how the last ones went); a
-- conversation an operator wrote in, that waits or that a human handles
-- was handed off, at the start of its wait, else at the operators' first
-- message, else at its latest activity. The outcome is the rule of
-- domain.Conversation.Outcome, written out once for this upgrade.
UPDATE conversations SET
	asked = EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = conversations.id AND m.role = 'visitor'),
	answered = EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = conversations.id AND m.role = 'ai'),
	first_operator_at = (SELECT min(m.created_at) FROM messages m WHERE m.conversation_id = conversations.id AND m.role = 'operator');
UPDATE conversations SET handed_at = coalesce(waiting_since, first_operator_at, last_activity_at)
WHERE waiting = 1 OR mode = 'human' OR assignee_id <> '' OR first_operator_at IS NOT NULL;
UPDATE conversations SET outcome = CASE
	WHEN asked = 0 THEN 'abandoned'
	WHEN handed_at IS NOT NULL THEN 'handed_off'
	WHEN misses > 0 OR answered = 0 THEN 'unanswered'
	ELSE 'resolved' END;

-- The visitor's thumbs on an AI answer: NULL none, 1 helpful, 0 not.
ALTER TABLE messages ADD COLUMN helpful INTEGER CHECK (helpful IN (0, 1));

-- The questions the agent could not answer (its reply was unanswered) or
-- answered with a thumbs-down, for the knowledge gaps: one per AI reply
-- (seq), with the visitor's message it answered. entry_id is the
-- knowledge entry that answers it now ('' while open). They go with their
-- conversation. Recorded from the upgrade on: old replies did not say
-- whether they answered.
CREATE TABLE questions (
	id              INTEGER PRIMARY KEY AUTOINCREMENT,
	account_id      TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	agent_id        TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
	conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
	seq             INTEGER NOT NULL,
	text            TEXT NOT NULL,
	lang            TEXT NOT NULL,
	reason          TEXT NOT NULL CHECK (reason IN ('unanswered', 'not_helpful')),
	at              INTEGER NOT NULL,
	entry_id        TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE UNIQUE INDEX questions_reply ON questions (seq);
CREATE INDEX questions_account ON questions (account_id, at);
CREATE INDEX questions_agent ON questions (agent_id, at);
CREATE INDEX questions_conversation ON questions (conversation_id);
