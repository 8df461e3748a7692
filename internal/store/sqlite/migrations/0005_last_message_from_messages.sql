-- A conversation's last message is read from its messages (the newest by
-- seq, one step down messages_conversation), no longer stored on the
-- conversation: every chat rewrote the conversation's row just to copy its
-- newest message there, an UPDATE and a page more to write per message.
-- The stored copies go, so that nothing can read a stale one.
ALTER TABLE conversations DROP COLUMN last_message_at;
ALTER TABLE conversations DROP COLUMN last_message;
