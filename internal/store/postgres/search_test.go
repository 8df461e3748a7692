package postgres

import (
	"fmt"
	"strings"
	"testing"

	"parley/internal/store"
	"parley/internal/store/storetest"
)

// TestSearchBothWays runs the search's contract with the index for any
// number of matches and with the scan for any number, so each way is
// checked on its own whatever searchCandidates is.
func TestSearchBothWays(t *testing.T) {
	t.Parallel()
	serverURL(t)
	for _, tt := range []struct {
		name string
		cap  int
	}{{"Index", 1 << 30}, {"Scan", -1}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			storetest.RunSearch(t, func(t *testing.T) store.Store {
				s := open(t, emptyStoreURL(t))
				s.searchCap = tt.cap
				return s
			})
		})
	}
}

// TestSearchPlans: the few-matches way finds its candidates first (an
// InitPlan) and looks them up by key, and its LIKE … ESCAPE can use the
// pg_trgm index (with sequential scans off: at a test's few thousand rows
// a scan is what the planner rightly takes; docs/benchmarks.md has the
// plans at 100,000); the many-matches way is an ordered scan of the
// conversations that stops at the page's end, without a sort.
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
	plan := func(q, seqscan string) string {
		t.Helper()
		var args []any
		arg := func(v any) string { args = append(args, v); return fmt.Sprintf("$%d", len(args)) }
		view := []string{"account_id = " + arg("acc"), "status = " + arg("open")}
		cond, err := s.searchCondition(ctx, q, searchScope{where: view, view: len(view), args: args, arg: arg, order: inboxOrder, limit: 51})
		if err != nil {
			t.Fatal(err)
		}
		conn, err := s.pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Release()
		if _, err := conn.Exec(ctx, `SET enable_seqscan = `+seqscan); err != nil {
			t.Fatal(err)
		}
		defer conn.Exec(ctx, `RESET enable_seqscan`)
		rows, err := conn.Query(ctx, `EXPLAIN SELECT id FROM conversations WHERE `+strings.Join(append(view, cond), " AND ")+
			` ORDER BY `+inboxOrder+` LIMIT 51`, args...)
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

	s.searchCap = 1 << 30
	if p := plan("question 4242 ", "off"); !strings.Contains(p, "InitPlan") || !strings.Contains(p, "Index Scan on messages_text_trgm") ||
		!strings.Contains(p, "on conversations_pkey") || !strings.Contains(p, "Index Cond: (id = ANY ($0))") {
		t.Errorf("few matches: plan %q; want the pg_trgm index's matches looked up by key", p)
	}
	s.searchCap = -1
	if p := plan("shipping", "on"); !strings.Contains(p, "Nested Loop Semi Join") || !strings.Contains(p, " using conversations_status on conversations") ||
		strings.Contains(p, "Sort") || strings.Contains(p, "messages_text_trgm") {
		t.Errorf("many matches: plan %q; want an ordered scan of the conversations without a sort", p)
	}
}
