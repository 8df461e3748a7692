package storetest

import (
	"slices"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// testSearchOrder: a search's page is in match order, the conversations
// by their newest matching message, not by their latest activity: one
// with an old match and a recent message comes after one with a newer
// match. The order of the list picks only a short search's window.
func testSearchOrder(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	at := func(m int) time.Time { return base.Add(time.Duration(m) * time.Minute) }
	old := f.conversation(t, s, at(0))
	add(t, s, store.NewMessage{ConversationID: old.ID, Role: domain.RoleVisitor, Text: "a refund for order ¤1", CreatedAt: at(1)})
	newer := f.conversation(t, s, at(2))
	add(t, s, store.NewMessage{ConversationID: newer.ID, Role: domain.RoleVisitor, Text: "is my REFUND through? ¤", CreatedAt: at(3)})
	// The old one is active after the newer match.
	add(t, s, store.NewMessage{ConversationID: old.ID, Role: domain.RoleVisitor, Text: "hello again, anyone?", CreatedAt: at(4)})
	none := f.conversation(t, s, at(5))
	add(t, s, store.NewMessage{ConversationID: none.ID, Role: domain.RoleVisitor, Text: "nothing to see", CreatedAt: at(6)})

	activity, err := s.Conversations(ctx, f.account.ID, store.ConversationFilter{Order: store.ByActivity, Status: domain.StatusOpen})
	noErr(t, "Conversations", err)
	if got := ids(activity.Conversations); !slices.Equal(got, []string{none.ID, old.ID, newer.ID}) {
		t.Fatalf("by activity = %v, want %v (the old one active after the newer match)", got, []string{none.ID, old.ID, newer.ID})
	}
	want := []string{newer.ID, old.ID}
	for _, q := range []string{"refund", "¤"} {
		for _, lf := range []store.ConversationFilter{
			{Order: store.ByActivity, Status: domain.StatusOpen},
			{Order: store.ByActivity}, // every status
			{},                        // by start
		} {
			lf.Search = q
			for _, limit := range []int{1, 2, 50} {
				lf.Limit = limit
				if got := searchAll(t, s, f.account.ID, lf); !slices.Equal(got, want) {
					t.Errorf("search %q in %+v = %v, want the newest match first %v", q, lf, got, want)
				}
			}
		}
	}
	// A new match brings its conversation to the top.
	add(t, s, store.NewMessage{ConversationID: old.ID, Role: domain.RoleAI, Text: "Your refund ¤ is on its way", CreatedAt: at(7)})
	if got := searchAll(t, s, f.account.ID, store.ConversationFilter{Search: "refund", Order: store.ByActivity, Limit: 1}); !slices.Equal(got, []string{old.ID, newer.ID}) {
		t.Errorf("after a new match = %v, want %v", got, []string{old.ID, newer.ID})
	}
	// A cursor of the list without the search is not the search's.
	page, err := s.Conversations(ctx, f.account.ID, store.ConversationFilter{Order: store.ByActivity, Limit: 1})
	noErr(t, "Conversations", err)
	if _, err := s.Conversations(ctx, f.account.ID, store.ConversationFilter{Search: "refund", Order: store.ByActivity, Before: page.Next}); err == nil {
		t.Error("the search took the list's activity cursor")
	}
}

// testSearchPaging pages searches through conversations that match
// several times each: every conversation comes once, at its newest
// match, across pages of every size, in the list's conditions; one that
// gets a new match between pages goes to the first page and is not
// repeated; one shown before is not repeated either.
func testSearchPaging(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	other := setup(t, s, many)
	const n = 9
	convs := make([]domain.Conversation, n)
	for i := range convs {
		convs[i] = f.conversation(t, s, base.Add(time.Duration(i)*time.Minute))
	}
	// The other account's matches stand between this one's.
	oc := other.conversation(t, s, base)
	// Three rounds of matches in a shuffled order, with other messages
	// between them; the last round gives the order: newest match first.
	perm := [][]int{{3, 0, 7, 1, 8, 5, 2, 6, 4}, {5, 1, 4, 8, 0, 6, 3, 7, 2}, {2, 7, 0, 4, 6, 1, 8, 3, 5}}
	minute := n
	for round, order := range perm {
		for _, i := range order {
			minute++
			add(t, s, store.NewMessage{ConversationID: convs[i].ID, Role: domain.RoleVisitor,
				Text: "Refund request ¤ round " + string(rune('a'+round)), CreatedAt: base.Add(time.Duration(minute) * time.Minute)})
			add(t, s, store.NewMessage{ConversationID: oc.ID, Role: domain.RoleVisitor, Text: "refund ¤ elsewhere"})
		}
	}
	// Messages that do not match move the activity, not the order.
	for _, i := range []int{2, 0} {
		minute++
		add(t, s, store.NewMessage{ConversationID: convs[i].ID, Role: domain.RoleAI, Text: "Anything else?", CreatedAt: base.Add(time.Duration(minute) * time.Minute)})
	}
	// One resolved: not in the open list.
	_, err := s.SetStatus(ctx, convs[8].ID, domain.StatusResolved)
	noErr(t, "SetStatus", err)

	last := perm[len(perm)-1]
	var all, open []string
	for k := len(last) - 1; k >= 0; k-- {
		id := convs[last[k]].ID
		all = append(all, id)
		if last[k] != 8 {
			open = append(open, id)
		}
	}
	for _, q := range []string{"refund request", "¤"} {
		for _, limit := range []int{1, 2, 4, n - 1, n, 50} {
			if got := searchAll(t, s, f.account.ID, store.ConversationFilter{Search: q, Order: store.ByActivity, Limit: limit}); !slices.Equal(got, all) {
				t.Errorf("search %q in pages of %d = %v, want %v", q, limit, got, all)
			}
			if got := searchAll(t, s, f.account.ID, store.ConversationFilter{Search: q, Order: store.ByActivity, Status: domain.StatusOpen, Limit: limit}); !slices.Equal(got, open) {
				t.Errorf("search %q among the open in pages of %d = %v, want %v", q, limit, got, open)
			}
		}
	}

	// Between pages: a conversation shown on the first page and one not
	// shown yet get a new match. Neither comes on the later pages (the
	// second moved to the first page), and every other one comes once.
	sf := store.ConversationFilter{Search: "refund request", Order: store.ByActivity, Limit: 3}
	first, err := s.Conversations(ctx, f.account.ID, sf)
	noErr(t, "Conversations", err)
	if got := ids(first.Conversations); !slices.Equal(got, all[:3]) || first.Next == "" {
		t.Fatalf("first page = %v (next %q), want %v and more", got, first.Next, all[:3])
	}
	shown, unseen := all[1], all[5]
	for _, id := range []string{shown, unseen} {
		add(t, s, store.NewMessage{ConversationID: id, Role: domain.RoleVisitor, Text: "REFUND REQUEST again"})
	}
	sf.Before = first.Next
	rest := searchAll(t, s, f.account.ID, sf)
	want := slices.DeleteFunc(slices.Clone(all[3:]), func(id string) bool { return id == unseen })
	if !slices.Equal(rest, want) {
		t.Errorf("the later pages after new matches = %v, want %v", rest, want)
	}
	if got := searchAll(t, s, f.account.ID, store.ConversationFilter{Search: "refund request", Order: store.ByActivity, Limit: 2}); !slices.Equal(got[:2], []string{unseen, shown}) || len(got) != n {
		t.Errorf("from the top after new matches = %v, want %s and %s first, %d in all", got, unseen, shown, n)
	}
}
