-- The owner's reports (issue 20, docs/benchmarks.md "Insights at 1,000,000
-- messages"): indexes that hold all a report reads of a conversation, so
-- a year of a busy account is read from them alone, and the outcomes are
-- grouped in the index's order, by hour, without a sort.
--   conversations_outcomes          the outcomes per hour of creation (days, busiest hours)
--   conversations_thumbs            the few conversations with thumbs
--   conversations_first_responses   the handed-off ones an operator answered (and
--                                   whose transcripts OperatorAnswers reads)
--   messages_operator               the operators' messages (few of all)
--   conversation_ratings_report     a rating's conversation and score
--   conversations_period            a rated conversation's start and agent
-- Each changes only when what it holds does: the outcome a few times in a
-- conversation's life, the thumbs and the first operator message rarely;
-- of the messages, only an operator's is added to one.
-- created_at too: SQLite reads the expression of an index from the column
-- it is computed of, so without it the index would not cover the query.
CREATE INDEX conversations_outcomes ON conversations (account_id, created_at / 3600000, outcome, agent_id, created_at);
CREATE INDEX conversations_thumbs ON conversations (account_id, created_at, agent_id, helpful, not_helpful)
	WHERE helpful > 0 OR not_helpful > 0;
CREATE INDEX conversations_first_responses ON conversations (account_id, created_at, agent_id, handed_at, first_operator_at, id)
	WHERE first_operator_at IS NOT NULL;
CREATE INDEX conversation_ratings_report ON conversation_ratings (account_id, conversation_id, rating);
CREATE INDEX conversations_period ON conversations (id, account_id, created_at, agent_id);
-- role too, though always 'operator' here: SQLite reads it from the index
-- rather than from the message's row.
CREATE INDEX messages_operator ON messages (conversation_id, seq, created_at, role) WHERE role = 'operator';
