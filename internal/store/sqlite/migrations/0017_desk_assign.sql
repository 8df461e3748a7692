-- The operator desk (issue 19): a conversation's status, operators'
-- presence and the account's auto-assign settings.
ALTER TABLE conversations ADD COLUMN status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved'));

-- The inbox's filters page newest first within their keys, like
-- conversations_account: by status (the default list is the open ones),
-- and by assignee (mine, unassigned) within a status.
CREATE INDEX conversations_status ON conversations (account_id, status, created_at DESC, id DESC);
CREATE INDEX conversations_assignee ON conversations (account_id, assignee_id, status, created_at DESC, id DESC);

-- One row per dashboard user who ever sent a heartbeat. Online: seen
-- within store.PresenceWindow and not away. last_assigned_at orders
-- auto-assign's round-robin (0: never). Times in unix milliseconds.
CREATE TABLE operator_presence (
	user_id          TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
	account_id       TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	last_seen_at     INTEGER NOT NULL,
	away             INTEGER NOT NULL DEFAULT 0 CHECK (away IN (0, 1)),
	last_assigned_at INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX operator_presence_account ON operator_presence (account_id);

ALTER TABLE accounts ADD COLUMN auto_assign INTEGER NOT NULL DEFAULT 0 CHECK (auto_assign IN (0, 1));
ALTER TABLE accounts ADD COLUMN assign_cap INTEGER NOT NULL DEFAULT 0 CHECK (assign_cap >= 0);
