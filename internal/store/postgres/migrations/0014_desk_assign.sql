-- The operator desk (issue 19): a conversation's status, operators'
-- presence and the account's auto-assign settings.
ALTER TABLE conversations ADD COLUMN status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved'));

-- The inbox's filters page newest first within their keys, like
-- conversations_account: by status (the default list is the open ones),
-- and by assignee (mine, unassigned) within a status.
CREATE INDEX conversations_status ON conversations (account_id, status, created_at DESC, id DESC);
CREATE INDEX conversations_assignee ON conversations (account_id, assignee_id, status, created_at DESC, id DESC);

-- One row per dashboard user who ever sent a heartbeat. Online: seen
-- within store.PresenceWindow and not away. Auto-assign locks the row
-- (FOR UPDATE) while it counts the operator's conversations against the
-- cap, so instances assigning at once stay within it; last_assigned_at
-- orders the round-robin.
CREATE TABLE operator_presence (
	user_id          text COLLATE "C" PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
	account_id       text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	last_seen_at     timestamptz NOT NULL,
	away             boolean NOT NULL DEFAULT false,
	last_assigned_at timestamptz NOT NULL DEFAULT 'epoch'
);
CREATE INDEX operator_presence_account ON operator_presence (account_id);

ALTER TABLE accounts ADD COLUMN auto_assign boolean NOT NULL DEFAULT false;
ALTER TABLE accounts ADD COLUMN assign_cap integer NOT NULL DEFAULT 0 CHECK (assign_cap >= 0);
