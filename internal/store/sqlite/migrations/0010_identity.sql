-- Verified visitors (issue 18): each agent's identity secret ('' until the
-- owner first sees it), and on each conversation who the visitor said
-- they are: user_id only when verified, name and email as given.
ALTER TABLE agents ADD COLUMN identity_secret TEXT NOT NULL DEFAULT '';
ALTER TABLE conversations ADD COLUMN user_id TEXT NOT NULL DEFAULT '';
ALTER TABLE conversations ADD COLUMN visitor_name TEXT NOT NULL DEFAULT '';
ALTER TABLE conversations ADD COLUMN visitor_email TEXT NOT NULL DEFAULT '';
ALTER TABLE conversations ADD COLUMN verified INTEGER NOT NULL DEFAULT 0 CHECK (verified IN (0, 1));

-- A contact's conversations (dashboard, widget history, privacy requests),
-- newest first; partial, so anonymous conversations cost nothing.
CREATE INDEX conversations_user ON conversations (account_id, user_id, created_at DESC, id DESC) WHERE user_id <> '';
