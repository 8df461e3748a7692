package sqlite

import (
	"strings"
	"testing"
)

// The inbox's desk filters read down an index that matches their keys and
// the inbox's order, so a page costs the same however many conversations
// the account has: no table scan and no sort of the account's rows.
func TestDeskFilterPlans(t *testing.T) {
	t.Parallel()
	s := openCopy(t)
	for _, tt := range []struct{ where, index string }{
		{"account_id = 'a' AND status = 'open'", "conversations_status"},
		{"account_id = 'a' AND status = 'resolved'", "conversations_status"},
		{"account_id = 'a' AND assignee_id = 'u' AND status = 'open'", "conversations_assignee"},
		{"account_id = 'a' AND assignee_id = '' AND status = 'open'", "conversations_assignee"},
		{"account_id = 'a' AND mode = 'ai' AND waiting = 1 AND status = 'open'", "conversations_waiting"},
	} {
		plan := strings.Join(queryPlan(t, s.r, `SELECT id FROM conversations WHERE `+tt.where+` ORDER BY created_at DESC, id DESC LIMIT 51`), "; ")
		if !strings.Contains(plan, "INDEX "+tt.index+" ") || strings.Contains(plan, "TEMP B-TREE") {
			t.Errorf("%s: plan %q; want %s and no sort", tt.where, plan, tt.index)
		}
	}
}
