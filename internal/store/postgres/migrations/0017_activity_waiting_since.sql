-- The desk's inbox by latest activity, and the time a wait for a human
-- began (issue 19). last_activity_at is the conversation's start or its
-- newest visitor, AI or operator message, whichever is later (private
-- notes, status and assignment changes are not activity); every message
-- sets it in the UPDATE that already keeps message_count and the last
-- message on the locked row. waiting_since is set when the conversation
-- begins to wait and cleared (NULL) when it stops; messages while it
-- waits leave it.
ALTER TABLE conversations ADD COLUMN last_activity_at timestamptz;
UPDATE conversations SET last_activity_at = GREATEST(created_at, last_message_at);
ALTER TABLE conversations ALTER COLUMN last_activity_at SET NOT NULL;

ALTER TABLE conversations ADD COLUMN waiting_since timestamptz;
-- When a conversation that waits now began to is not known. Its wait began
-- with an AI message (the handoff message), or later; visitor messages
-- after it no longer restart it. So the newest AI or operator message (an
-- operator's reply ends a wait: one can only start after it), else the
-- start: never earlier than the wait really began.
UPDATE conversations c SET waiting_since = coalesce(
	(SELECT max(m.created_at) FROM messages m WHERE m.conversation_id = c.id AND m.role <> 'visitor'),
	c.created_at)
WHERE waiting;

-- Every desk view reads down an index that holds its order, with the id as
-- the keyset's tie-break, the same indexes as SQLite's (migration 0020
-- there): by status (open, resolved; unassigned is the open ones with no
-- assignee), by agent and status, and by assignee for the assigned ones
-- only (mine). "All" merges the two statuses' ranges. The creation-keyed
-- conversations_account, _agent and _waiting stay for the management
-- API's default order.
-- Ascending, read backwards for the newest first: a message's entry then
-- goes to the right end of its range, where a B-tree appends cheaply.
DROP INDEX conversations_status;
DROP INDEX conversations_assignee;
CREATE INDEX conversations_status ON conversations (account_id, status, last_activity_at, id);
CREATE INDEX conversations_agent_activity ON conversations (agent_id, status, last_activity_at, id);
CREATE INDEX conversations_assignee ON conversations (account_id, assignee_id, status, last_activity_at, id)
	WHERE assignee_id <> '';
-- The waiting queue, longest first: only waiting conversations are in it.
CREATE INDEX conversations_waiting_since ON conversations (account_id, waiting_since, id) WHERE waiting;
