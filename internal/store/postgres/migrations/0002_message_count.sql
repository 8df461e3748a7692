-- The number of a conversation's messages, kept on its row by every
-- message write under the row's lock, so that the cap on messages per
-- conversation (store.NewMessage.Fits) is checked without counting them,
-- exactly however many instances write at once. Existing conversations
-- start with the count of the messages they hold.
ALTER TABLE conversations ADD COLUMN message_count integer NOT NULL DEFAULT 0 CHECK (message_count >= 0);

UPDATE conversations c SET message_count = m.n
FROM (SELECT conversation_id, count(*) AS n FROM messages GROUP BY conversation_id) m
WHERE m.conversation_id = c.id;
