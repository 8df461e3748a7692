-- The usage thresholds each account was told of, once per period (issue
-- 18: the usage.threshold webhook event; quota.Crossed names them). The
-- row is written in the transaction that admitted the conversation that
-- crossed the threshold; its key makes a second telling impossible.
CREATE TABLE usage_thresholds (
	account_id text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	period     text COLLATE "C" NOT NULL, -- "2006-01", quota.Period
	threshold  text COLLATE "C" NOT NULL, -- quota.Threshold*
	created_at timestamptz NOT NULL,
	PRIMARY KEY (account_id, period, threshold)
);
