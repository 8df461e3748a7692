package postgres

import (
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"parley/internal/domain"
	"parley/internal/store"
)

// Every view of the desk's inbox reads down an index that holds its order,
// as on SQLite (TestDeskFilterPlans there): no sort of the account's rows.
// An empty table would be read whole by any plan, so the planner is told
// to avoid sequential scans and sorts; a query that can only be answered
// with one still shows it. Conversations' own queries, with and without a
// cursor, as generic plans (the parameters unknown to the planner, as a
// prepared statement may be planned once for all).
func TestDeskPlans(t *testing.T) {
	t.Parallel()
	s := open(t, freshSchema(t))
	ctx := t.Context()
	me, none, yes := "u", "", true
	open, resolved := domain.StatusOpen, domain.StatusResolved
	for _, tt := range []struct {
		name  string
		f     store.ConversationFilter
		index string
	}{
		{"open", store.ConversationFilter{Status: open, Order: store.ByActivity}, "conversations_status"},
		{"resolved", store.ConversationFilter{Status: resolved, Order: store.ByActivity}, "conversations_status"},
		{"mine", store.ConversationFilter{Status: open, Assignee: &me, Order: store.ByActivity}, "conversations_assignee"},
		{"unassigned", store.ConversationFilter{Status: open, Assignee: &none, Order: store.ByActivity}, "conversations_status"},
		{"all", store.ConversationFilter{Order: store.ByActivity}, "conversations_status"},
		{"all, one agent", store.ConversationFilter{AgentID: "ag", Order: store.ByActivity}, "conversations_agent_activity"},
		{"open, one agent", store.ConversationFilter{AgentID: "ag", Status: open, Order: store.ByActivity}, "conversations_agent_activity"},
		{"waiting", store.ConversationFilter{Status: open, Mode: domain.ModeAI, Waiting: &yes, Order: store.ByWaiting}, "conversations_waiting_since"},
		{"API: all", store.ConversationFilter{}, "conversations_account"},
	} {
		for _, before := range []string{"", tt.f.Order.Next(domain.Conversation{ID: "cv_x", CreatedAt: time.UnixMilli(5),
			LastActivityAt: time.UnixMilli(5), WaitingSince: time.UnixMilli(5)})} {
			f := tt.f
			f.Before = before
			for _, f := range f.StatusArms() {
				query, args, err := s.conversationsQuery("a", f)
				if err != nil {
					t.Fatal(err)
				}
				var lines []string
				err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
					for _, set := range []string{"enable_seqscan = off", "enable_sort = off", "plan_cache_mode = force_generic_plan"} {
						if _, err := tx.Exec(ctx, "SET LOCAL "+set); err != nil {
							return err
						}
					}
					if _, err := tx.Exec(ctx, "PREPARE q AS "+query); err != nil {
						return err
					}
					params := strings.TrimSuffix(strings.Repeat("NULL, ", len(args)), ", ")
					rows, err := tx.Query(ctx, "EXPLAIN EXECUTE q("+params+")")
					if err != nil {
						return err
					}
					lines, err = pgx.CollectRows(rows, pgx.RowTo[string])
					if err != nil {
						return err
					}
					_, err = tx.Exec(ctx, "DEALLOCATE q")
					return err
				})
				if err != nil {
					t.Fatalf("%s: %v", tt.name, err)
				}
				plan := strings.Join(lines, "\n")
				sorted := false
				for _, l := range lines {
					// A node's line: its name, two spaces, its costs ("Sort Key:"
					// lines belong to a Merge Append too).
					node, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "->")), "  (")
					if node == "Sort" || node == "Incremental Sort" || strings.HasPrefix(node, "Seq Scan") {
						sorted = true
					}
				}
				if sorted || !strings.Contains(plan, " "+tt.index+" ") {
					t.Errorf("%s (%s, cursor %q): plan\n%s\nwant %s and no sort", tt.name, f.Status, before, plan, tt.index)
				}
			}
		}
	}
}
