-- Each account's audit log (issue 18): who did what. seq numbers the
-- entries as they are written; pages go newest first down
-- (account_id, seq), and the entries older than a year are deleted down
-- (account_id, at) by the write that adds one (store.AuditLog).
CREATE TABLE audit_log (
	seq        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	account_id text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	at         timestamptz NOT NULL,
	actor_type text NOT NULL,
	actor_id   text NOT NULL,
	actor      text NOT NULL,
	ip         text NOT NULL,
	action     text NOT NULL,
	target     text NOT NULL
);
CREATE INDEX audit_log_account ON audit_log (account_id, seq);
CREATE INDEX audit_log_account_at ON audit_log (account_id, at);
