package sqlite

import (
	"strings"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// Every view of the desk's inbox (and the management API's orders) reads
// down an index that matches its keys and its order, so a page costs the
// same however many conversations the account has: no table scan and no
// sort of the account's rows. The queries are Conversations' own, on the
// first page and on a later one (the keyset's comparison must not cost
// the index its order).
func TestDeskFilterPlans(t *testing.T) {
	t.Parallel()
	s := openCopy(t)
	me, none, yes, no := "u", "", true, false
	open, resolved := domain.StatusOpen, domain.StatusResolved
	for _, tt := range []struct {
		name  string
		f     store.ConversationFilter
		index string
	}{
		{"open", store.ConversationFilter{Status: open, Order: store.ByActivity}, "conversations_status"},
		{"resolved", store.ConversationFilter{Status: resolved, Order: store.ByActivity}, "conversations_status"},
		{"mine", store.ConversationFilter{Status: open, Assignee: &me, Order: store.ByActivity}, "conversations_assignee"},
		// The open ones with no assignee: nearly all the open ones.
		{"unassigned", store.ConversationFilter{Status: open, Assignee: &none, Order: store.ByActivity}, "conversations_status"},
		// Every status: a page of the open and of the resolved ones, merged.
		{"all", store.ConversationFilter{Order: store.ByActivity}, "conversations_status"},
		{"all, one agent", store.ConversationFilter{AgentID: "ag", Order: store.ByActivity}, "conversations_agent_activity"},
		{"open, one agent", store.ConversationFilter{AgentID: "ag", Status: open, Order: store.ByActivity}, "conversations_agent_activity"},
		{"resolved, one agent", store.ConversationFilter{AgentID: "ag", Status: resolved, Order: store.ByActivity}, "conversations_agent_activity"},
		{"open, handled by a human", store.ConversationFilter{Status: open, Mode: domain.ModeHuman, Order: store.ByActivity}, "conversations_status"},
		// The waiting view and the rows pinned on top: the queue, longest first.
		{"waiting", store.ConversationFilter{Status: open, Mode: domain.ModeAI, Waiting: &yes, Order: store.ByWaiting}, "conversations_waiting_since"},
		{"waiting, one agent", store.ConversationFilter{AgentID: "ag", Status: open, Mode: domain.ModeAI, Waiting: &yes, Order: store.ByWaiting}, "conversations_waiting_since"},
		{"waiting, mine", store.ConversationFilter{Status: open, Mode: domain.ModeAI, Waiting: &yes, Assignee: &me, Order: store.ByWaiting}, ""},
		// The management API: sort=activity with an assignee, every status.
		{"API: an assignee's, by activity", store.ConversationFilter{Assignee: &me, Order: store.ByActivity}, "conversations_assignee"},
		// The management API's default order, by start.
		{"API: all", store.ConversationFilter{}, "conversations_account"},
		{"API: one agent", store.ConversationFilter{AgentID: "ag"}, "conversations_agent"},
		{"API: waiting", store.ConversationFilter{Waiting: &yes}, "conversations_waiting"},
		{"API: not waiting", store.ConversationFilter{Waiting: &no}, "conversations_waiting"},
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
				plan := strings.Join(queryPlan(t, s.r, query, args...), "; ")
				if strings.Contains(plan, "TEMP B-TREE") || strings.Contains(plan, "SCAN conversations") ||
					(tt.index != "" && !strings.Contains(plan, "INDEX "+tt.index+" ")) {
					t.Errorf("%s (%s, cursor %q): plan %q; want %s and no sort", tt.name, f.Status, before, plan, tt.index)
				}
			}
		}
	}
}
