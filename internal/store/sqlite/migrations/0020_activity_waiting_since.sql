-- The desk's inbox by latest activity, and the time a wait for a human
-- began (issue 19). last_activity_at is the conversation's start or its
-- newest visitor, AI or operator message, whichever is later (unix
-- milliseconds; private notes, status and assignment changes are not
-- activity). Every message sets it, in the write that stores the message:
-- one UPDATE a chat, the price of ordering by it (docs/benchmarks.md).
-- waiting_since is set when the conversation begins to wait and cleared
-- (NULL) when it stops; messages while it waits leave it.
ALTER TABLE conversations ADD COLUMN last_activity_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE conversations ADD COLUMN waiting_since INTEGER;

UPDATE conversations SET last_activity_at = max(created_at,
	coalesce((SELECT max(m.created_at) FROM messages m WHERE m.conversation_id = conversations.id), 0));

-- When a conversation that waits now began to is not known. Its wait began
-- with an AI message (the handoff message), or later; visitor messages
-- after it no longer restart it. So the newest AI or operator message (an
-- operator's reply ends a wait: one can only start after it), else the
-- start: never earlier than the wait really began.
UPDATE conversations SET waiting_since = coalesce(
	(SELECT max(m.created_at) FROM messages m WHERE m.conversation_id = conversations.id AND m.role <> 'visitor'),
	created_at)
WHERE waiting = 1;

-- Every desk view reads down an index that holds its order, with the id as
-- the keyset's tie-break. Every message moves its conversation in each
-- index keyed on last_activity_at (an entry deleted and inserted), so they
-- are as few as the views allow: by status (open, resolved; unassigned is
-- the open ones with no assignee), by agent and status, and by assignee
-- for the assigned ones only (mine), which a chat with the AI never
-- touches. "All" merges the two statuses' ranges. The creation-keyed
-- conversations_account, _agent and _waiting stay for the management
-- API's default order; a message does not touch them.
-- Ascending, read backwards for the newest first: a message's entry then
-- goes to the right end of its range, where a B-tree appends cheaply.
DROP INDEX conversations_status;
DROP INDEX conversations_assignee;
CREATE INDEX conversations_status ON conversations (account_id, status, last_activity_at, id);
CREATE INDEX conversations_agent_activity ON conversations (agent_id, status, last_activity_at, id);
CREATE INDEX conversations_assignee ON conversations (account_id, assignee_id, status, last_activity_at, id)
	WHERE assignee_id <> '';
-- The waiting queue, longest first: only waiting conversations are in it,
-- and it is keyed on the wait's start, which their messages leave.
CREATE INDEX conversations_waiting_since ON conversations (account_id, waiting_since, id) WHERE waiting = 1;
