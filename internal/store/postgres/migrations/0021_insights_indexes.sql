-- The owner's reports (issue 20, docs/benchmarks.md "Insights at 1,000,000
-- messages"): as SQLite's migration 0024, indexes that hold all a report
-- reads of a conversation, so that a year of a busy account is an
-- index-only scan, hashed by hour and outcome.
--   conversations_outcomes          the outcomes by time of creation (days,
--                                   busiest hours; the ids for the ratings)
--   conversations_thumbs            the few conversations with thumbs
--   conversations_first_responses   the handed-off ones an operator answered (and
--                                   whose transcripts OperatorAnswers reads)
--   conversation_ratings_report     a rating's conversation and score
--   messages_operator               the operators' messages (few of all)
CREATE INDEX conversations_outcomes ON conversations (account_id, created_at) INCLUDE (outcome, agent_id, id);
CREATE INDEX conversations_thumbs ON conversations (account_id, created_at) INCLUDE (agent_id, helpful, not_helpful)
	WHERE helpful > 0 OR not_helpful > 0;
CREATE INDEX conversations_first_responses ON conversations (account_id, created_at)
	INCLUDE (agent_id, handed_at, first_operator_at, id) WHERE first_operator_at IS NOT NULL;
CREATE INDEX conversation_ratings_report ON conversation_ratings (account_id) INCLUDE (conversation_id, rating);
CREATE INDEX messages_operator ON messages (conversation_id, seq) INCLUDE (created_at) WHERE role = 'operator';
