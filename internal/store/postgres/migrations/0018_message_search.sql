-- The inbox search's index (issue 19, docs/store.md "The inbox search"): a
-- GIN index of the trigrams of every message's folded text (pg_trgm), which
-- answers text_folded LIKE '%…%' from the trigrams of the pattern and
-- rechecks the rows it finds, instead of reading every message.
--
-- pg_trgm ships with PostgreSQL (the contrib package) and is a trusted
-- extension (PostgreSQL 13+): a role with CREATE on the database may
-- install it. It goes into public where this role may create there (then
-- it outlives any one schema of a database shared by several stores), else
-- into the store's own schema. Without the privilege, or without the
-- contrib package, the migration fails and says what to do
-- (docs/operations.md): an administrator runs CREATE EXTENSION pg_trgm once.
DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
		IF EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = 'public') AND has_schema_privilege('public', 'CREATE') THEN
			CREATE EXTENSION pg_trgm SCHEMA public;
		ELSE
			CREATE EXTENSION pg_trgm;
		END IF;
	END IF;
EXCEPTION WHEN insufficient_privilege OR undefined_file THEN
	RAISE EXCEPTION 'the inbox search needs the pg_trgm extension (%): as the database owner or a superuser, run CREATE EXTENSION pg_trgm; in this database (Debian and Ubuntu ship it in postgresql-contrib), then start Parley again', SQLERRM;
END $$;

-- The operator class lives in the extension's schema, wherever that is. IF
-- NOT EXISTS: an administrator may have built it beforehand, CONCURRENTLY,
-- so that a large table is not locked by the upgrade (docs/operations.md).
-- gin_pending_list_limit: a chat's insert adds its trigrams to GIN's
-- pending list, merged into the index when the list passes the limit, and
-- every search reads the whole list. At the default 4 MB that was 30-40 ms
-- of a search at 100,000 conversations; 256 kB keeps it about a
-- millisecond, and the chats still write in batches (docs/benchmarks.md).
DO $$
BEGIN
	EXECUTE format('CREATE INDEX IF NOT EXISTS messages_text_trgm ON messages USING gin (text_folded %I.gin_trgm_ops) WITH (gin_pending_list_limit = 256)',
		(SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'));
END $$;
