-- Signed webhooks (issue 18): an account's endpoints and each one's
-- delivery log. events is a JSON array of event types. A pending delivery
-- is the endpoint's queue (oldest first by seq); finished ones are the log,
-- trimmed to the newest 100 per endpoint by the store.
CREATE TABLE webhooks (
	id         TEXT PRIMARY KEY,
	account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	url        TEXT NOT NULL,
	events     TEXT NOT NULL,
	secret     TEXT NOT NULL,
	created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX webhooks_account ON webhooks (account_id, created_at);

CREATE TABLE webhook_deliveries (
	seq           INTEGER PRIMARY KEY AUTOINCREMENT,
	id            TEXT NOT NULL UNIQUE,
	webhook_id    TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
	event_id      TEXT NOT NULL,
	type          TEXT NOT NULL,
	body          BLOB NOT NULL,
	attempt       INTEGER NOT NULL,
	status        TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
	response_code INTEGER NOT NULL,
	error         TEXT NOT NULL,
	created_at    INTEGER NOT NULL,
	updated_at    INTEGER NOT NULL
) STRICT;
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, seq);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (created_at) WHERE status = 'pending';
