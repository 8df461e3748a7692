package storetest

import (
	"errors"
	"sync"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

// The operator desk (issue 19): status, filters, assignment, presence.

func deskUser(t *testing.T, s store.Store, accountID, name string) domain.User {
	t.Helper()
	u, err := s.CreateUser(t.Context(), store.NewUser{
		AccountID: accountID, Email: secret.ID("op", 6) + "@example.com", Name: name,
		PasswordHash: "hash", Role: domain.UserOperator,
	})
	noErr(t, "CreateUser", err)
	return u
}

func ids(cs []domain.Conversation) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

func sameIDs(t *testing.T, what string, got []domain.Conversation, want ...domain.Conversation) {
	t.Helper()
	g, w := ids(got), ids(want)
	if len(g) != len(w) {
		t.Fatalf("%s: %v, want %v", what, g, w)
	}
	for i := range g {
		if g[i] != w[i] {
			t.Fatalf("%s: %v, want %v", what, g, w)
		}
	}
}

func testDeskStatus(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	a := f.conversation(t, s, base)
	b := f.conversation(t, s, base.Add(time.Second))
	if a.Status != domain.StatusOpen {
		t.Fatalf("new conversation status %q", a.Status)
	}
	_, err := s.SetWaiting(ctx, b.ID, true)
	noErr(t, "SetWaiting", err)
	changed, err := s.SetStatus(ctx, b.ID, domain.StatusResolved)
	noErr(t, "SetStatus", err)
	if !changed {
		t.Fatal("resolving an open conversation: changed = false")
	}
	if changed, _ = s.SetStatus(ctx, b.ID, domain.StatusResolved); changed {
		t.Fatal("resolving twice: changed = true")
	}
	got, err := s.Conversation(ctx, b.ID)
	noErr(t, "Conversation", err)
	if got.Status != domain.StatusResolved || got.Waiting {
		t.Fatalf("resolved: status %q waiting %v; want resolved, not waiting", got.Status, got.Waiting)
	}
	page, err := s.Conversations(ctx, f.account.ID, store.ConversationFilter{Status: domain.StatusOpen})
	noErr(t, "Conversations", err)
	sameIDs(t, "open", page.Conversations, a)
	page, err = s.Conversations(ctx, f.account.ID, store.ConversationFilter{Status: domain.StatusResolved})
	noErr(t, "Conversations", err)
	sameIDs(t, "resolved", page.Conversations, b)
	if _, err := s.SetStatus(ctx, "cv_missing", domain.StatusOpen); !isNotFound(err) {
		t.Fatalf("SetStatus of a missing conversation: %v", err)
	}
	if _, err := s.SetStatus(ctx, a.ID, "closed"); err == nil {
		t.Fatal("SetStatus accepted an unknown status")
	}
	changed, err = s.SetStatus(ctx, b.ID, domain.StatusOpen)
	noErr(t, "SetStatus", err)
	if !changed {
		t.Fatal("reopening: changed = false")
	}
	page, err = s.Conversations(ctx, f.account.ID, store.ConversationFilter{Status: domain.StatusOpen})
	noErr(t, "Conversations", err)
	sameIDs(t, "open after reopening", page.Conversations, b, a)
}

func testDeskAssign(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	ana := deskUser(t, s, f.account.ID, "Ana")
	a := f.conversation(t, s, base)
	b := f.conversation(t, s, base.Add(time.Second))
	got, err := s.Assign(ctx, a.ID, ana.ID, "Ana")
	noErr(t, "Assign", err)
	if got.Mode != domain.ModeHuman || got.AssigneeID != ana.ID || got.AssigneeName != "Ana" {
		t.Fatalf("Assign = mode %s assignee %q %q", got.Mode, got.AssigneeID, got.AssigneeName)
	}
	// An owner's choice overrides whoever held it.
	bo := deskUser(t, s, f.account.ID, "Bo")
	got, err = s.Assign(ctx, a.ID, bo.ID, "Bo")
	noErr(t, "Assign", err)
	if got.AssigneeID != bo.ID {
		t.Fatalf("reassigned to %q, want %q", got.AssigneeID, bo.ID)
	}
	if _, err := s.Assign(ctx, "cv_missing", bo.ID, "Bo"); !isNotFound(err) {
		t.Fatalf("Assign of a missing conversation: %v", err)
	}
	mine := bo.ID
	page, err := s.Conversations(ctx, f.account.ID, store.ConversationFilter{Assignee: &mine})
	noErr(t, "Conversations", err)
	sameIDs(t, "Bo's", page.Conversations, a)
	none := ""
	page, err = s.Conversations(ctx, f.account.ID, store.ConversationFilter{Assignee: &none, Status: domain.StatusOpen})
	noErr(t, "Conversations", err)
	sameIDs(t, "unassigned", page.Conversations, b)
}

func testDeskPresence(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	ana := deskUser(t, s, f.account.ID, "Ana")
	other := setup(t, s, many)
	before, err := s.Heartbeat(ctx, f.account.ID, ana.ID, base)
	noErr(t, "Heartbeat", err)
	if !before.LastSeen.IsZero() {
		t.Fatalf("first heartbeat: before = %+v", before)
	}
	before, err = s.Heartbeat(ctx, f.account.ID, ana.ID, base.Add(10*time.Second))
	noErr(t, "Heartbeat", err)
	if !before.LastSeen.Equal(base) {
		t.Fatalf("second heartbeat: before.LastSeen = %v, want %v", before.LastSeen, base)
	}
	// An older heartbeat (another instance's clock) does not go back.
	_, err = s.Heartbeat(ctx, f.account.ID, ana.ID, base)
	noErr(t, "Heartbeat", err)
	// A user of another account cannot be recorded under this one.
	_, err = s.Heartbeat(ctx, other.account.ID, ana.ID, base)
	noErr(t, "Heartbeat", err)
	ps, err := s.Presences(ctx, f.account.ID)
	noErr(t, "Presences", err)
	if len(ps) != 1 || ps[0].UserID != ana.ID || ps[0].Name != "Ana" || !ps[0].LastSeen.Equal(base.Add(10*time.Second)) || ps[0].Away {
		t.Fatalf("Presences = %+v", ps)
	}
	if ps, _ := s.Presences(ctx, other.account.ID); len(ps) != 0 {
		t.Fatalf("other account's presences = %+v", ps)
	}
	noErr(t, "SetAway", s.SetAway(ctx, f.account.ID, ana.ID, true, base))
	ps, _ = s.Presences(ctx, f.account.ID)
	if len(ps) != 1 || !ps[0].Away || ps[0].Online(base.Add(10*time.Second)) {
		t.Fatalf("away: %+v", ps)
	}
	noErr(t, "SetAway", s.SetAway(ctx, f.account.ID, ana.ID, false, base))
	ps, _ = s.Presences(ctx, f.account.ID)
	if !ps[0].Online(base.Add(10*time.Second + store.PresenceWindow)) {
		t.Fatal("not online within the window")
	}
	if ps[0].Online(base.Add(10*time.Second + store.PresenceWindow + time.Millisecond)) {
		t.Fatal("online past the window")
	}

	d, err := s.DeskSettings(ctx, f.account.ID)
	noErr(t, "DeskSettings", err)
	if d.AutoAssign || d.Cap != 0 {
		t.Fatalf("default desk settings %+v", d)
	}
	noErr(t, "SetDeskSettings", s.SetDeskSettings(ctx, f.account.ID, store.DeskSettings{AutoAssign: true, Cap: 3}))
	if d, _ = s.DeskSettings(ctx, f.account.ID); !d.AutoAssign || d.Cap != 3 {
		t.Fatalf("desk settings %+v", d)
	}
	if err := s.SetDeskSettings(ctx, f.account.ID, store.DeskSettings{Cap: -1}); err == nil {
		t.Fatal("a negative cap was accepted")
	}
}

func testDeskAutoAssign(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	ana := deskUser(t, s, f.account.ID, "Ana")
	_, err := s.Heartbeat(ctx, f.account.ID, ana.ID, base)
	noErr(t, "Heartbeat", err)
	waiting := func() domain.Conversation {
		c := f.conversation(t, s, base)
		_, err := s.SetWaiting(ctx, c.ID, true)
		noErr(t, "SetWaiting", err)
		return c
	}
	a, b := waiting(), waiting()
	out, err := s.AutoAssign(ctx, a.ID, ana.ID, "Ana", 1, base.Add(time.Second))
	noErr(t, "AutoAssign", err)
	if out != store.Assigned {
		t.Fatalf("AutoAssign = %v, want Assigned", out)
	}
	got, _ := s.Conversation(ctx, a.ID)
	if got.Mode != domain.ModeHuman || got.Waiting || got.AssigneeID != ana.ID {
		t.Fatalf("after AutoAssign: %+v", got)
	}
	if out, _ = s.AutoAssign(ctx, a.ID, ana.ID, "Ana", 0, base); out != store.NotWaiting {
		t.Fatalf("assigning a taken conversation = %v, want NotWaiting", out)
	}
	if out, _ = s.AutoAssign(ctx, b.ID, ana.ID, "Ana", 1, base); out != store.OperatorFull {
		t.Fatalf("past the cap = %v, want OperatorFull", out)
	}
	ps, _ := s.Presences(ctx, f.account.ID)
	if len(ps) != 1 || ps[0].Open != 1 || !ps[0].LastAssigned.Equal(base.Add(time.Second)) {
		t.Fatalf("Presences = %+v", ps)
	}
	// Resolving frees a place under the cap.
	_, err = s.SetStatus(ctx, a.ID, domain.StatusResolved)
	noErr(t, "SetStatus", err)
	if out, _ = s.AutoAssign(ctx, b.ID, ana.ID, "Ana", 1, base); out != store.Assigned {
		t.Fatalf("after resolving = %v, want Assigned", out)
	}
}

// testDeskAutoAssignConcurrent: several assigners (instances) race for the
// same waiting conversations; each goes to exactly one operator, and no
// operator passes the cap.
func testDeskAutoAssignConcurrent(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	var ops []domain.User
	for _, n := range []string{"Ana", "Bo", "Cy"} {
		u := deskUser(t, s, f.account.ID, n)
		_, err := s.Heartbeat(ctx, f.account.ID, u.ID, base)
		noErr(t, "Heartbeat", err)
		ops = append(ops, u)
	}
	const convs, capacity = 8, 2
	var cs []domain.Conversation
	for range convs {
		c := f.conversation(t, s, base)
		_, err := s.SetWaiting(ctx, c.ID, true)
		noErr(t, "SetWaiting", err)
		cs = append(cs, c)
	}
	var mu sync.Mutex
	won := map[string]int{} // conversation → times assigned
	var wg sync.WaitGroup
	for _, c := range cs {
		for _, op := range ops {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out, err := s.AutoAssign(ctx, c.ID, op.ID, op.Name, capacity, base)
				if err != nil {
					t.Error(err)
					return
				}
				if out == store.Assigned {
					mu.Lock()
					won[c.ID]++
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	assigned := 0
	for _, c := range cs {
		if won[c.ID] > 1 {
			t.Fatalf("conversation %s assigned %d times", c.ID, won[c.ID])
		}
		assigned += won[c.ID]
	}
	if assigned != len(ops)*capacity {
		t.Fatalf("%d assigned, want %d (every operator to the cap)", assigned, len(ops)*capacity)
	}
	ps, err := s.Presences(ctx, f.account.ID)
	noErr(t, "Presences", err)
	for _, p := range ps {
		if p.Open != capacity {
			t.Fatalf("%s holds %d, want %d", p.Name, p.Open, capacity)
		}
	}
}

func isNotFound(err error) bool { return errors.Is(err, domain.ErrNotFound) }
