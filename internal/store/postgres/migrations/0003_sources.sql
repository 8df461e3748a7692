-- Website sources (issue 16): where an agent's knowledge comes from besides
-- what its owner types, and the pages their syncs took in. Both go with
-- their agent. sync_every is in milliseconds (0: on demand only);
-- next_sync_at and synced_at are NULL for never.
CREATE TABLE sources (
	id           text COLLATE "C" PRIMARY KEY,
	account_id   text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	agent_id     text COLLATE "C" NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
	kind         text NOT NULL CHECK (kind IN ('website')),
	url          text NOT NULL,
	max_pages    integer NOT NULL,
	sync_every   bigint NOT NULL,
	status       text NOT NULL CHECK (status IN ('queued', 'syncing', 'ready', 'failed')),
	pages        integer NOT NULL DEFAULT 0,
	chars        bigint NOT NULL DEFAULT 0,
	error        text NOT NULL DEFAULT '',
	note         text NOT NULL DEFAULT '',
	synced_at    timestamptz,
	next_sync_at timestamptz,
	created_at   timestamptz NOT NULL,
	ord          bigint GENERATED ALWAYS AS IDENTITY
);

-- An agent's sources oldest first (ord breaks ties); the schedule's scan.
CREATE INDEX sources_agent ON sources (agent_id, created_at, ord);
CREATE INDEX sources_due ON sources (next_sync_at) WHERE next_sync_at IS NOT NULL;

-- A page's id is derived from its source and URL (store.PageID), the same
-- on every sync. chars is its text's length in code points, counted once.
CREATE TABLE source_pages (
	id        text COLLATE "C" PRIMARY KEY,
	source_id text COLLATE "C" NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
	agent_id  text COLLATE "C" NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
	position  integer NOT NULL,
	url       text NOT NULL,
	title     text NOT NULL,
	text      text NOT NULL,
	lang      text NOT NULL DEFAULT '',
	chars     integer NOT NULL,
	UNIQUE (source_id, position)
);

CREATE INDEX source_pages_agent ON source_pages (agent_id);
