-- Verified visitors (issue 18): each agent's identity secret ('' until the
-- owner first sees it), and on each conversation who the visitor said
-- they are: user_id only when verified, name and email as given.
ALTER TABLE agents ADD COLUMN identity_secret TEXT NOT NULL DEFAULT '';
ALTER TABLE conversations ADD COLUMN user_id TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE conversations ADD COLUMN visitor_name TEXT NOT NULL DEFAULT '';
ALTER TABLE conversations ADD COLUMN visitor_email TEXT NOT NULL DEFAULT '';
ALTER TABLE conversations ADD COLUMN verified BOOLEAN NOT NULL DEFAULT false;

-- A contact's conversations (dashboard, widget history, privacy requests),
-- newest first; partial, so anonymous conversations cost nothing.
CREATE INDEX conversations_user ON conversations (account_id, user_id, created_at DESC, id DESC) WHERE user_id <> '';
