-- Per-account retention (issue 18): conversations whose last message is
-- older than this many days are deleted by the daily retention job; 0
-- keeps them forever.
ALTER TABLE accounts ADD COLUMN retention_days integer NOT NULL DEFAULT 0
	CHECK (retention_days >= 0);
