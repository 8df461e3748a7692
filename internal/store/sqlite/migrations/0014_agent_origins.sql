-- The origins an agent's widget was used from (issue 18: the dashboard's
-- hint under the allowed origins). Bounded per agent by the store
-- (store.MaxSeenOrigins, store.SeenOriginsKept); last_seen_at is unix
-- milliseconds.
CREATE TABLE agent_origins (
	agent_id     TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
	origin       TEXT NOT NULL,
	count        INTEGER NOT NULL,
	last_seen_at INTEGER NOT NULL,
	PRIMARY KEY (agent_id, origin)
) STRICT, WITHOUT ROWID;
