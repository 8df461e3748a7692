package postgres

import (
	"testing"

	"parley/internal/store/storetest"
)

// BenchmarkSearch100k is the SQLite store's benchmark of the same name on
// PostgreSQL: one account with 100,000 conversations of two messages each
// (every 20th resolved, every 10th assigned, every 5,000th to a
// newcomer), written in one statement
// each, then ANALYZE, as autovacuum would. Skipped without
// PARLEY_TEST_POSTGRES_URL; timings are never asserted.
//
//	go test -run '^$' -bench Search100k -benchtime 20x ./internal/store/postgres/
func BenchmarkSearch100k(b *testing.B) {
	ctx := b.Context()
	s := open(b, freshSchema(b))
	const owner, newcomer = "usr_bench", "usr_new"
	for _, q := range []string{
		`INSERT INTO accounts (id, email, name, password_hash, monthly_conversations, overage_price_cents, spend_cap_cents, created_at)
			VALUES ('acc', 'p@example.com', 'P', 'x', 1000000, 0, 0, now())`,
		`INSERT INTO agents (id, account_id, chatbot_name, config, created_at, updated_at) VALUES ('ag', 'acc', 'Bot', '{}', now(), now())`,
		`INSERT INTO conversations (id, agent_id, account_id, visitor_id, page_url, mode, created_at, assignee_id, status, last_activity_at)
			SELECT 'cv_' || lpad(i::text, 6, '0'), 'ag', 'acc', 'v_' || i, '',
				CASE WHEN i % 20 <> 0 AND i % 10 = 5 OR i % 5000 = 7 THEN 'human' ELSE 'ai' END,
				now() - interval '200 days' + i * interval '1 minute',
				CASE WHEN i % 20 <> 0 AND i % 10 = 5 THEN '` + owner + `' WHEN i % 5000 = 7 THEN '` + newcomer + `' ELSE '' END,
				CASE WHEN i % 20 = 0 THEN 'resolved' ELSE 'open' END,
				now() - interval '200 days' + i * interval '1 minute' + interval '1 second'
			FROM generate_series(0, 99999) i`,
		// A conversation's two messages one after the other, as a chat
		// writes them.
		`INSERT INTO messages (conversation_id, role, text, text_folded, created_at)
			SELECT 'cv_' || lpad(i::text, 6, '0'), r.role, r.text, lower(r.text),
				now() - interval '200 days' + i * interval '1 minute' + r.n * interval '1 second'
			FROM generate_series(0, 99999) i, LATERAL (VALUES
				(0, 'visitor', 'Question number ' || i || ' about shipping to Chișinău'),
				(1, 'ai', 'Delivery is free over 500 lei.')) AS r (n, role, text)
			ORDER BY i, r.n`,
		`ANALYZE`,
	} {
		if _, err := s.pool.Exec(ctx, q); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	storetest.BenchSearch(b, s, "acc", owner, newcomer, func(n int) { s.smallList = n })
}
