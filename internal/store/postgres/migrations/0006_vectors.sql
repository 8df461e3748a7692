-- Embeddings of agents' passages for hybrid retrieval (issue 17): keyed by
-- agent, model and the SHA-256 of the passage's text (store.TextHash), so
-- unchanged text is not embedded again and another model's vectors are
-- other rows. vec is little-endian float32 (store.EncodeVector): search is
-- exact and in memory (docs/agent.md), so pgvector is not needed.
CREATE TABLE passage_vectors (
	agent_id   text COLLATE "C" NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
	model      text COLLATE "C" NOT NULL,
	hash       text COLLATE "C" NOT NULL,
	vec        bytea NOT NULL,
	created_at timestamptz NOT NULL,
	PRIMARY KEY (agent_id, model, hash)
);
