-- Dashboard users and their sessions, conversation assignees, and the folded
-- message text the inbox search reads.

CREATE TABLE users (
	id            TEXT PRIMARY KEY,
	account_id    TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	-- Lower-cased by the store, like accounts.email, so UNIQUE is a
	-- case-insensitive constraint across the whole instance.
	email         TEXT NOT NULL UNIQUE,
	name          TEXT NOT NULL,
	password_hash TEXT NOT NULL,
	role          TEXT NOT NULL CHECK (role IN ('owner', 'operator')),
	created_at    INTEGER NOT NULL
) STRICT;

-- Users are listed per account, oldest first (rowid breaks ties).
CREATE INDEX users_account ON users (account_id, created_at);

-- Every account that existed before users did signs in as its owner: same
-- email, name and password. The id has the same prefix and entropy as
-- secret.ID("usr_", 10); only its alphabet (hex) differs, and ids are opaque.
INSERT INTO users (id, account_id, email, name, password_hash, role, created_at)
SELECT 'usr_' || lower(hex(randomblob(10))), id, email, name, password_hash, 'owner', created_at
FROM accounts;

-- Only the SHA-256 of a session token is stored; a leaked database does not
-- let anyone sign in.
CREATE TABLE sessions (
	token_hash BLOB PRIMARY KEY,
	user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	created_at INTEGER NOT NULL,
	expires_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- For ON DELETE CASCADE and sign-out-everywhere (by user) and for the lazy
-- cleanup of expired sessions (by expiry).
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expiry ON sessions (expires_at);

-- The operator handling a conversation in human mode; '' when it is handled
-- by the AI or was taken over through the API. No foreign key on purpose:
-- the name stays readable on conversations after the user is deleted.
ALTER TABLE conversations ADD COLUMN assignee_id TEXT NOT NULL DEFAULT '';
ALTER TABLE conversations ADD COLUMN assignee_name TEXT NOT NULL DEFAULT '';

-- text with Unicode case folded (see fold in search.go). SQLite's LIKE and
-- lower() fold ASCII only, so the store writes this column from Go; the Go
-- step of this migration (migrationSteps) fills it for existing messages.
ALTER TABLE messages ADD COLUMN text_folded TEXT NOT NULL DEFAULT '';
