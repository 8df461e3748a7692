-- Embeddings of agents' passages for hybrid retrieval (issue 17): keyed by
-- agent, model and the SHA-256 of the passage's text (store.TextHash), so
-- unchanged text is not embedded again and another model's vectors are
-- other rows. vec is little-endian float32 (store.EncodeVector).
CREATE TABLE passage_vectors (
	agent_id   TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
	model      TEXT NOT NULL,
	hash       TEXT NOT NULL,
	vec        BLOB NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (agent_id, model, hash)
) STRICT, WITHOUT ROWID;
