package postgres

import (
	"strings"
	"testing"
	"time"

	"parley/internal/store"
	"parley/internal/store/storetest"
)

// BenchmarkInsights1M is the SQLite store's benchmark of the same name on
// PostgreSQL: one account with 1,000,000 messages seeded as
// storetest.InsightsBenchConversations says, in SQL, then VACUUM ANALYZE,
// as autovacuum would. Skipped without PARLEY_TEST_POSTGRES_URL; timings are
// never asserted.
//
//	go test -run '^$' -bench Insights1M -benchtime 20x ./internal/store/postgres/
func BenchmarkInsights1M(b *testing.B) {
	ctx := b.Context()
	s := open(b, freshSchema(b))
	end := store.Now()
	start := end.Add(-storetest.InsightsBenchSpan)
	// One connection: the seed's temporary table is the session's.
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range insightsSeed {
		if _, err := conn.Exec(ctx, q, seedArgs(q, start, storetest.InsightsBenchConversations)...); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	conn.Release()
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM messages`).Scan(&n); err != nil || n != storetest.InsightsBenchMessages {
		b.Fatalf("seeded %d messages (%v), want %d", n, err, storetest.InsightsBenchMessages)
	}
	storetest.BenchInsights(b, s, "acc", "ag1", end)
}

// insightsSeed is the SQLite benchmark's seed in PostgreSQL's SQL. The
// statements take the seed's start ($1) and its number of conversations
// ($2), those they name.
var insightsSeed = []string{
	`INSERT INTO accounts (id, email, name, password_hash, monthly_conversations, overage_price_cents, spend_cap_cents, created_at)
		SELECT 'acc', 'bench@example.com', 'Bench', 'h', 1000000, 0, 0, $1::timestamptz`,
	`INSERT INTO agents (id, account_id, chatbot_name, config, created_at, updated_at)
		SELECT 'ag' || n, 'acc', 'Bot', '{}', $1::timestamptz, $1::timestamptz FROM generate_series(0, 2) n`,
	`CREATE TEMP TABLE seed AS
		SELECT i, $1::timestamptz + i * interval '252.288 seconds' AS at,
			CASE WHEN i % 20 < 2 THEN 'abandoned' WHEN i % 20 < 13 THEN 'resolved' WHEN i % 20 < 16 THEN 'unanswered'
				ELSE 'handed_off' END AS outcome,
			'ag' || CASE WHEN (i / 7) % 10 < 5 THEN 0 WHEN (i / 7) % 10 < 8 THEN 1 ELSE 2 END AS agent
		FROM generate_series(0, $2::int - 1) i`,
	`INSERT INTO conversations (id, agent_id, account_id, visitor_id, page_url, mode, created_at, last_activity_at,
			status, assignee_id, assignee_name, misses, asked, answered, handed_at, first_operator_at, helpful, not_helpful, outcome)
		SELECT 'cv_' || lpad(i::text, 6, '0'), agent, 'acc', 'v_' || i, 'https://shop.example.com/',
			CASE outcome WHEN 'handed_off' THEN 'human' ELSE 'ai' END, at, at + interval '140 seconds',
			CASE WHEN i % 2 = 0 THEN 'resolved' ELSE 'open' END,
			CASE outcome WHEN 'handed_off' THEN 'usr_op' ELSE '' END, CASE outcome WHEN 'handed_off' THEN 'Olga' ELSE '' END,
			CASE WHEN i % 20 IN (13, 14) THEN 1 ELSE 0 END, outcome <> 'abandoned', outcome <> 'abandoned',
			CASE outcome WHEN 'handed_off' THEN at + interval '100 seconds' END,
			CASE outcome WHEN 'handed_off' THEN at + interval '140 seconds' + (i % 900) * interval '1 second' END,
			CASE WHEN outcome = 'resolved' AND i % 3 = 0 THEN 1 ELSE 0 END, CASE WHEN i % 20 = 15 THEN 1 ELSE 0 END, outcome
		FROM seed ORDER BY i`,
	`INSERT INTO messages (conversation_id, role, text, text_folded, operator_name, created_at, helpful)
		SELECT id, role, text, lower(text), CASE role WHEN 'operator' THEN 'Olga' ELSE '' END, mat,
			CASE WHEN j = 7 AND role = 'ai' AND outcome = 'resolved' AND i % 3 = 0 THEN true WHEN j = 7 AND i % 20 = 15 THEN false END
		FROM (SELECT *, CASE role
				WHEN 'visitor' THEN 'How do I ' || topic || '? (order ' || i || ', ' || j || ')'
				WHEN 'ai' THEN 'Here is how to ' || topic || ': open Orders, pick the order and follow the steps.'
				ELSE 'I did it for you, order ' || i || '.' END AS text
			FROM (SELECT s.i, s.outcome, t.j, 'cv_' || lpad(s.i::text, 6, '0') AS id,
					s.at + t.j * interval '20 seconds'
						+ CASE WHEN s.outcome = 'handed_off' AND t.j >= 6 THEN (s.i % 900) * interval '1 second' ELSE interval '0' END AS mat,
					CASE WHEN t.j % 2 = 0 THEN 'visitor' WHEN s.outcome = 'handed_off' AND t.j >= 6 THEN 'operator' ELSE 'ai' END AS role,
					CASE s.i % 8 WHEN 0 THEN 'change my delivery address' WHEN 1 THEN 'return a damaged item'
						WHEN 2 THEN 'pay by bank transfer' WHEN 3 THEN 'track my parcel' WHEN 4 THEN 'cancel my subscription'
						WHEN 5 THEN 'get an invoice' WHEN 6 THEN 'reset my password' ELSE 'ship to Chișinău' END AS topic
				FROM seed s JOIN generate_series(0, 11) t (j)
					ON t.j < CASE s.outcome WHEN 'abandoned' THEN 0 WHEN 'handed_off' THEN 12 ELSE 8 END) x) y
		ORDER BY i, j`,
	// Statistics before the join below, as autovacuum would have them.
	`ANALYZE conversations, messages`,
	`INSERT INTO questions (account_id, agent_id, conversation_id, seq, text, lang, reason, at, entry_id)
		SELECT 'acc', c.agent_id, c.id, m.seq, v.text, CASE WHEN c.not_helpful > 0 THEN '' ELSE 'en' END,
			CASE WHEN c.not_helpful > 0 THEN 'not_helpful' ELSE 'unanswered' END, m.created_at,
			CASE WHEN m.seq % 4 = 0 THEN 'kn_answered' ELSE '' END
		FROM conversations c JOIN messages m ON m.conversation_id = c.id AND m.role = 'ai'
			AND m.created_at = c.created_at + CASE c.outcome WHEN 'handed_off' THEN interval '100 seconds' ELSE interval '140 seconds' END
		JOIN messages v ON v.seq = m.seq - 1
		WHERE c.outcome IN ('handed_off', 'unanswered') ORDER BY m.seq`,
	`INSERT INTO conversation_ratings (conversation_id, account_id, rating, comment, at)
		SELECT 'cv_' || lpad(i::text, 6, '0'), 'acc', 1 + (i / 10) % 5, '', at + interval '200 seconds' FROM seed
		WHERE i % 10 = 3 AND outcome <> 'abandoned'`,
	`DROP TABLE seed`,
	// What autovacuum does after so many inserts: the statistics, and
	// the visibility map that lets a scan read an index alone.
	`VACUUM ANALYZE`,
}

// seedArgs are the arguments of the seed's statement q: those it names.
func seedArgs(q string, start time.Time, n int) []any {
	switch {
	case strings.Contains(q, "$2"):
		return []any{start, n}
	case strings.Contains(q, "$1"):
		return []any{start}
	}
	return nil
}
