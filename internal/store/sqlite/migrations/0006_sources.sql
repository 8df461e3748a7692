-- Website sources (issue 16): where an agent's knowledge comes from besides
-- what its owner types, and the pages their syncs took in. Both go with
-- their agent. sync_every is in milliseconds (0: on demand only);
-- next_sync_at and synced_at are NULL for never.
CREATE TABLE sources (
	id           TEXT PRIMARY KEY,
	account_id   TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	agent_id     TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
	kind         TEXT NOT NULL CHECK (kind IN ('website')),
	url          TEXT NOT NULL,
	max_pages    INTEGER NOT NULL,
	sync_every   INTEGER NOT NULL,
	status       TEXT NOT NULL CHECK (status IN ('queued', 'syncing', 'ready', 'failed')),
	pages        INTEGER NOT NULL DEFAULT 0,
	chars        INTEGER NOT NULL DEFAULT 0,
	error        TEXT NOT NULL DEFAULT '',
	note         TEXT NOT NULL DEFAULT '',
	synced_at    INTEGER,
	next_sync_at INTEGER,
	created_at   INTEGER NOT NULL
) STRICT;

-- An agent's sources oldest first (rowid breaks ties); the schedule's scan.
CREATE INDEX sources_agent ON sources (agent_id, created_at);
CREATE INDEX sources_due ON sources (next_sync_at) WHERE next_sync_at IS NOT NULL;

-- A page's id is derived from its source and URL (store.PageID), the same
-- on every sync. chars is its text's length in code points, counted once.
CREATE TABLE source_pages (
	id        TEXT PRIMARY KEY,
	source_id TEXT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
	agent_id  TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
	position  INTEGER NOT NULL,
	url       TEXT NOT NULL,
	title     TEXT NOT NULL,
	text      TEXT NOT NULL,
	lang      TEXT NOT NULL DEFAULT '',
	chars     INTEGER NOT NULL,
	UNIQUE (source_id, position)
) STRICT;

CREATE INDEX source_pages_agent ON source_pages (agent_id);
