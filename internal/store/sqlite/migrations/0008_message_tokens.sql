-- LLM token usage (issue 17): what each AI reply cost, as the backend
-- counted it, and the month's total per account. Zero for every message
-- before this and for replies of the built-in knowledge-base agent.
ALTER TABLE messages ADD COLUMN prompt_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN completion_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage ADD COLUMN prompt_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage ADD COLUMN completion_tokens INTEGER NOT NULL DEFAULT 0;
