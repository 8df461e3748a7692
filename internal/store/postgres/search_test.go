package postgres

import (
	"math"
	"strings"
	"testing"

	"parley/internal/store"
	"parley/internal/store/storetest"
)

// TestSearchBothWays runs the search's contract with the walk reading
// every message and with the index alone, so each way is checked on its
// own whatever searchWalk is, with a walk of one message, which leaves
// most pages to the index, and with a short walk read two matches at a
// time; and, as the store runs with the contract's few conversations,
// through the messages of a small list.
func TestSearchBothWays(t *testing.T) {
	t.Parallel()
	serverURL(t)
	for _, tt := range []struct {
		name               string
		walk, chunk, small int
	}{{"Walk", 1 << 30, walkChunk, 0}, {"Index", 0, walkChunk, 0}, {"Both", 1, walkChunk, 0}, {"Chunks", 5, 2, 0},
		{"SmallList", searchWalk, walkChunk, store.ShortSearchWindow}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			storetest.RunSearch(t, func(t *testing.T) store.Store {
				s := open(t, emptyStoreURL(t))
				s.searchWalk, s.walkChunk, s.smallList = tt.walk, tt.chunk, tt.small
				return s
			})
		})
	}
}

// TestSearchPlans: the walk reads the messages down the primary key,
// newest first, without a sort, its conversations by key; the index's
// step finds its matches through the pg_trgm index and checks their
// conversations by key, not by a join (with sequential
// scans off: at a test's few thousand rows a scan is what the planner
// rightly takes; docs/benchmarks.md has the plans at 100,000).
func TestSearchPlans(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := open(t, freshSchema(t))
	for _, q := range []string{
		`INSERT INTO accounts (id, email, name, password_hash, monthly_conversations, overage_price_cents, spend_cap_cents, created_at)
			VALUES ('acc', 'p@example.com', 'P', 'x', 1000000, 0, 0, now())`,
		`INSERT INTO agents (id, account_id, chatbot_name, config, created_at, updated_at) VALUES ('ag', 'acc', 'Bot', '{}', now(), now())`,
		`INSERT INTO conversations (id, agent_id, account_id, visitor_id, page_url, mode, created_at, status, last_activity_at)
			SELECT 'cv_' || i, 'ag', 'acc', 'v_' || i, '', 'ai', now() - i * interval '1 minute',
				CASE WHEN i % 20 = 0 THEN 'resolved' ELSE 'open' END, now() - i * interval '1 minute' FROM generate_series(1, 5000) i`,
		`INSERT INTO messages (conversation_id, role, text, text_folded, created_at)
			SELECT 'cv_' || i, 'visitor', 'question ' || i || ' about shipping', 'question ' || i || ' about shipping', now() FROM generate_series(1, 5000) i`,
		`ANALYZE`,
	} {
		if _, err := s.pool.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	plan := func(query string, args queryArgs, seqscan string) string {
		t.Helper()
		conn, err := s.pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Release()
		if _, err := conn.Exec(ctx, `SET enable_seqscan = `+seqscan); err != nil {
			t.Fatal(err)
		}
		defer conn.Exec(ctx, `RESET enable_seqscan`)
		rows, err := conn.Query(ctx, `EXPLAIN `+query, append([]any{searchPlanned}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var lines []string
		for rows.Next() {
			var l string
			if err := rows.Scan(&l); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, strings.TrimSpace(l))
		}
		return strings.Join(lines, "; ")
	}
	f := store.ConversationFilter{Search: "shipping", Status: "open"}
	for _, below := range []int64{math.MaxInt64, 4000} {
		q, args := walkQuery("acc", f, min(below, 5001)-searchWalk, below, below, walkChunk)
		if p := plan(q, args, "on"); !strings.Contains(p, "Index Scan Backward using messages_pkey on messages m") ||
			!strings.Contains(p, "conversations_pkey") || strings.Contains(p, "Sort") || strings.Contains(p, "Join") ||
			below != math.MaxInt64 && !strings.Contains(p, "messages_conversation on messages n") {
			t.Errorf("the walk below %d: plan %q; want the messages down the primary key, no sort", below, p)
		}
	}
	q, args := indexQuery("acc", store.ConversationFilter{Search: "question 4242 ", Status: "open"}, 4000, 51)
	if p := plan(q, args, "off"); !strings.Contains(p, "Bitmap Index Scan on messages_text_trgm") ||
		!strings.Contains(p, "conversations_pkey") || strings.Contains(p, "Join") {
		t.Errorf("the index's step: plan %q; want the pg_trgm index's matches, their conversations by key", p)
	}
}
