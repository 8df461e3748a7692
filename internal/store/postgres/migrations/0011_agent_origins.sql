-- The origins an agent's widget was used from (issue 18: the dashboard's
-- hint under the allowed origins). Bounded per agent by the store
-- (store.MaxSeenOrigins, store.SeenOriginsKept).
CREATE TABLE agent_origins (
	agent_id     text COLLATE "C" NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
	origin       text COLLATE "C" NOT NULL,
	count        bigint NOT NULL,
	last_seen_at timestamptz NOT NULL,
	PRIMARY KEY (agent_id, origin)
);
