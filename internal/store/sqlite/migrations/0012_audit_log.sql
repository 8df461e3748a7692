-- Each account's audit log (issue 18): who did what. seq numbers the
-- entries as they are written; pages go newest first down
-- (account_id, seq), and the entries older than a year are deleted down
-- (account_id, at) by the write that adds one (store.AuditLog).
CREATE TABLE audit_log (
	seq        INTEGER PRIMARY KEY AUTOINCREMENT,
	account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	at         INTEGER NOT NULL,
	actor_type TEXT NOT NULL,
	actor_id   TEXT NOT NULL,
	actor      TEXT NOT NULL,
	ip         TEXT NOT NULL,
	action     TEXT NOT NULL,
	target     TEXT NOT NULL
) STRICT;
CREATE INDEX audit_log_account ON audit_log (account_id, seq);
CREATE INDEX audit_log_account_at ON audit_log (account_id, at);
