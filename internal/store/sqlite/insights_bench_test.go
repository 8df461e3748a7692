package sqlite

import (
	"strings"
	"testing"

	"parley/internal/store"
	"parley/internal/store/storetest"
)

// BenchmarkInsights1M is issue 20's reports on one account with 1,000,000
// messages, seeded as storetest.InsightsBenchConversations says, in SQL
// (about 15 s), and measured by storetest.BenchInsights. Timings are never
// asserted (docs/benchmarks.md "Insights at 1,000,000 messages").
//
//	go test -run '^$' -bench Insights1M -benchtime 20x ./internal/store/sqlite/
func BenchmarkInsights1M(b *testing.B) {
	s := openTemp(b)
	end := store.Now()
	start := end.Add(-storetest.InsightsBenchSpan)
	tx, err := s.w.Begin()
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range insightsSeed {
		if _, err := tx.Exec(q, seedArgs(q, millis(start), storetest.InsightsBenchConversations)...); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	// The seed's quarter of a gigabyte out of the WAL before measuring:
	// a store in use is not in the middle of checkpointing its whole
	// database, and that work would count in the reads' CPU time.
	if _, err := s.w.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		b.Fatal(err)
	}
	var n int
	if err := s.w.QueryRow(`SELECT count(*) FROM messages`).Scan(&n); err != nil || n != storetest.InsightsBenchMessages {
		b.Fatalf("seeded %d messages (%v), want %d", n, err, storetest.InsightsBenchMessages)
	}
	storetest.BenchInsights(b, s, "acc", "ag1", end)
}

// insightsSeed writes the benchmark's account. The statements take the
// seed's start (unix ms, ?1) and its number of conversations (?2), those
// they name.
var insightsSeed = []string{
	`INSERT INTO accounts (id, email, name, password_hash, monthly_conversations, overage_price_cents, spend_cap_cents, created_at)
		VALUES ('acc', 'bench@example.com', 'Bench', 'h', 1000000, 0, 0, ?1)`,
	`INSERT INTO agents (id, account_id, chatbot_name, config, created_at, updated_at)
		SELECT 'ag' || n, 'acc', 'Bot', '{}', ?1, ?1 FROM (SELECT 0 AS n UNION ALL SELECT 1 UNION ALL SELECT 2)`,
	// One row per conversation: its number, start, outcome and agent.
	`CREATE TEMP TABLE seed AS WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?2 - 1)
		SELECT i, ?1 + i * 252288 AS at,
			CASE WHEN i % 20 < 2 THEN 'abandoned' WHEN i % 20 < 13 THEN 'resolved' WHEN i % 20 < 16 THEN 'unanswered'
				ELSE 'handed_off' END AS outcome,
			'ag' || CASE WHEN (i / 7) % 10 < 5 THEN 0 WHEN (i / 7) % 10 < 8 THEN 1 ELSE 2 END AS agent
		FROM n`,
	`INSERT INTO conversations (id, agent_id, account_id, visitor_id, page_url, mode, created_at, last_activity_at,
			status, assignee_id, assignee_name, misses, asked, answered, handed_at, first_operator_at, helpful, not_helpful, outcome)
		SELECT printf('cv_%06d', i), agent, 'acc', 'v_' || i, 'https://shop.example.com/',
			CASE outcome WHEN 'handed_off' THEN 'human' ELSE 'ai' END, at, at + 140000,
			CASE WHEN i % 2 = 0 THEN 'resolved' ELSE 'open' END,
			CASE outcome WHEN 'handed_off' THEN 'usr_op' ELSE '' END, CASE outcome WHEN 'handed_off' THEN 'Olga' ELSE '' END,
			CASE WHEN i % 20 IN (13, 14) THEN 1 ELSE 0 END, outcome <> 'abandoned', outcome <> 'abandoned',
			CASE outcome WHEN 'handed_off' THEN at + 100000 END,
			CASE outcome WHEN 'handed_off' THEN at + 140000 + (i % 900) * 1000 END,
			CASE WHEN outcome = 'resolved' AND i % 3 = 0 THEN 1 ELSE 0 END, CASE WHEN i % 20 = 15 THEN 1 ELSE 0 END, outcome
		FROM seed ORDER BY i`,
	// A conversation's messages one after the other, 20 s apart (the
	// operators' after the wait for them), as the chat writes them.
	`INSERT INTO messages (conversation_id, role, text, text_folded, operator_name, created_at, helpful)
		SELECT id, role, text, lower(text), CASE role WHEN 'operator' THEN 'Olga' ELSE '' END, mat,
			CASE WHEN j = 7 AND role = 'ai' AND outcome = 'resolved' AND i % 3 = 0 THEN 1 WHEN j = 7 AND i % 20 = 15 THEN 0 END
		FROM (SELECT *, CASE role
				WHEN 'visitor' THEN 'How do I ' || topic || '? (order ' || i || ', ' || j || ')'
				WHEN 'ai' THEN 'Here is how to ' || topic || ': open Orders, pick the order and follow the steps.'
				ELSE 'I did it for you, order ' || i || '.' END AS text
			FROM (WITH RECURSIVE t(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM t WHERE j < 11)
				SELECT s.i, s.outcome, t.j, printf('cv_%06d', s.i) AS id,
					s.at + t.j * 20000 + CASE WHEN s.outcome = 'handed_off' AND t.j >= 6 THEN (s.i % 900) * 1000 ELSE 0 END AS mat,
					CASE WHEN t.j % 2 = 0 THEN 'visitor' WHEN s.outcome = 'handed_off' AND t.j >= 6 THEN 'operator' ELSE 'ai' END AS role,
					CASE s.i % 8 WHEN 0 THEN 'change my delivery address' WHEN 1 THEN 'return a damaged item'
						WHEN 2 THEN 'pay by bank transfer' WHEN 3 THEN 'track my parcel' WHEN 4 THEN 'cancel my subscription'
						WHEN 5 THEN 'get an invoice' WHEN 6 THEN 'reset my password' ELSE 'ship to Chișinău' END AS topic
				FROM seed s JOIN t ON t.j < CASE s.outcome WHEN 'abandoned' THEN 0 WHEN 'handed_off' THEN 12 ELSE 8 END))
		ORDER BY i, j`,
	// The answer that missed (an unanswered conversation's last, a
	// handed-off one's third) or got the thumbs-down records the
	// visitor's message just before it.
	`INSERT INTO questions (account_id, agent_id, conversation_id, seq, text, lang, reason, at, entry_id)
		SELECT 'acc', c.agent_id, c.id, m.seq, v.text, CASE WHEN c.not_helpful > 0 THEN '' ELSE 'en' END,
			CASE WHEN c.not_helpful > 0 THEN 'not_helpful' ELSE 'unanswered' END, m.created_at,
			CASE WHEN m.seq % 4 = 0 THEN 'kn_answered' ELSE '' END
		FROM conversations c JOIN messages m ON m.conversation_id = c.id AND m.role = 'ai'
			AND m.created_at = c.created_at + CASE c.outcome WHEN 'handed_off' THEN 100000 ELSE 140000 END
		JOIN messages v ON v.seq = m.seq - 1
		WHERE c.outcome IN ('handed_off', 'unanswered') ORDER BY m.seq`,
	`INSERT INTO conversation_ratings (conversation_id, account_id, rating, comment, at)
		SELECT printf('cv_%06d', i), 'acc', 1 + (i / 10) % 5, '', at + 200000 FROM seed
		WHERE i % 10 = 3 AND outcome <> 'abandoned'`,
	// What the search's indexer would reach in time: it is not measured
	// here, and must not work through the seed during the benchmark.
	`UPDATE message_search_state SET indexed_seq = (SELECT max(seq) FROM messages)`,
	`DROP TABLE seed`,
}

// seedArgs are the arguments of the seed's statement q: those it names.
func seedArgs(q string, start int64, n int) []any {
	switch {
	case strings.Contains(q, "?2"):
		return []any{start, n}
	case strings.Contains(q, "?1"):
		return []any{start}
	}
	return nil
}
