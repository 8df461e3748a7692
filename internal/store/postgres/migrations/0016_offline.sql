-- Nobody left waiting (issue 19): business hours per account (JSON,
-- hours.Hours), the contact a visitor left and when they last polled, the
-- operators' wait alerts and the visitors' ratings (CSAT). Each row goes
-- with its account, user or conversation.
CREATE TABLE business_hours (
	account_id text COLLATE "C" PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
	hours      TEXT NOT NULL
);

CREATE TABLE visitor_contacts (
	conversation_id text COLLATE "C" PRIMARY KEY REFERENCES conversations (id) ON DELETE CASCADE,
	given_at        TIMESTAMPTZ NOT NULL
);

CREATE TABLE visitor_seen (
	conversation_id text COLLATE "C" PRIMARY KEY REFERENCES conversations (id) ON DELETE CASCADE,
	seen_at         TIMESTAMPTZ NOT NULL
);

CREATE TABLE wait_alerts (
	user_id    text COLLATE "C" PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
	account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	minutes    INTEGER NOT NULL CHECK (minutes >= 0)
);
CREATE INDEX wait_alerts_account ON wait_alerts (account_id) WHERE minutes > 0;

CREATE TABLE conversation_ratings (
	conversation_id text COLLATE "C" PRIMARY KEY REFERENCES conversations (id) ON DELETE CASCADE,
	account_id      text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	rating          INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
	comment         TEXT NOT NULL,
	at              TIMESTAMPTZ NOT NULL
);
CREATE INDEX conversation_ratings_account ON conversation_ratings (account_id, at);
