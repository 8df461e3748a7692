-- Knowledge documents (kind 'document' with a title and a text) beside
-- question-and-answer pairs, and the "needs a human" queue: a conversation
-- waits for a human after the visitor asked for one or the agent missed
-- twice in a row (misses counts consecutive unanswered AI replies).
ALTER TABLE knowledge ADD COLUMN kind TEXT NOT NULL DEFAULT 'qa' CHECK (kind IN ('qa', 'document'));
ALTER TABLE knowledge ADD COLUMN title TEXT NOT NULL DEFAULT '';
ALTER TABLE knowledge ADD COLUMN text TEXT NOT NULL DEFAULT '';
ALTER TABLE conversations ADD COLUMN waiting INTEGER NOT NULL DEFAULT 0;
ALTER TABLE conversations ADD COLUMN misses INTEGER NOT NULL DEFAULT 0;
CREATE INDEX conversations_waiting ON conversations (account_id, waiting, created_at DESC, id DESC);
