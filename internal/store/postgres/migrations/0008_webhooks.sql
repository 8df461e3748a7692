-- Signed webhooks (issue 18): an account's endpoints and each one's
-- delivery log. events is a JSON array of event types. A pending delivery
-- is the endpoint's queue (oldest first by seq); finished ones are the log,
-- trimmed to the newest 100 per endpoint by the store.
CREATE TABLE webhooks (
	id         text COLLATE "C" PRIMARY KEY,
	account_id text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	url        text NOT NULL,
	events     text NOT NULL,
	secret     text NOT NULL,
	created_at timestamptz NOT NULL
);
CREATE INDEX webhooks_account ON webhooks (account_id, created_at);

CREATE TABLE webhook_deliveries (
	seq           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	id            text COLLATE "C" NOT NULL UNIQUE,
	webhook_id    text COLLATE "C" NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
	event_id      text NOT NULL,
	type          text NOT NULL,
	body          bytea NOT NULL,
	attempt       integer NOT NULL,
	status        text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
	response_code integer NOT NULL,
	error         text NOT NULL,
	created_at    timestamptz NOT NULL,
	updated_at    timestamptz NOT NULL
);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, seq);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (created_at) WHERE status = 'pending';
