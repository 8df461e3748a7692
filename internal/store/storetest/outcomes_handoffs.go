package storetest

import (
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// testOutcomeHandoffs: every write that hands a conversation to a person
// without a message records the handoff, at its time, and the outcome.
func testOutcomeHandoffs(t *testing.T, s store.Store, raw Raw) {
	ctx := t.Context()
	f := setup(t, s, many)
	op := deskUser(t, s, f.account.ID, "Ana")
	asked := func() domain.Conversation {
		t.Helper()
		c := f.conversation(t, s, base)
		_, _, err := s.AddExchange(ctx,
			store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "hours?", CreatedAt: base.Add(time.Second)},
			store.NewMessage{ConversationID: c.ID, Role: domain.RoleAI, Text: "9 to 18", CreatedAt: base.Add(2 * time.Second), RequireMode: domain.ModeAI})
		noErr(t, "AddExchange", err)
		outcomeIs(t, s, raw, c.ID, domain.OutcomeResolved)
		return c
	}
	handedNow := func(what string, c domain.Conversation, before, after time.Time) domain.Conversation {
		t.Helper()
		got := outcomeIs(t, s, raw, c.ID, domain.OutcomeHandedOff)
		stampedNow(t, what+": HandedAt", got.HandedAt, before, after)
		return got
	}

	for _, tc := range []struct {
		what string
		fn   func(c domain.Conversation) error
	}{
		{"SetWaiting", func(c domain.Conversation) error { _, err := s.SetWaiting(ctx, c.ID, true); return err }},
		{"SetMode", func(c domain.Conversation) error { _, err := s.SetMode(ctx, c.ID, domain.ModeHuman); return err }},
		{"Assign", func(c domain.Conversation) error {
			got, err := s.Assign(ctx, c.ID, op.ID, op.Name)
			if err == nil && (got.HandedAt.IsZero() || got.Outcome() != domain.OutcomeHandedOff) {
				t.Errorf("Assign returned %+v", got)
			}
			return err
		}},
		{"TakeOver", func(c domain.Conversation) error {
			got, won, err := s.TakeOver(ctx, c.ID, op.ID, op.Name)
			if err == nil {
				stored, _ := raw.StoredConversation(t, c.ID)
				if !won || got != stored {
					t.Errorf("TakeOver returned %+v (won %v), stored %+v", got, won, stored)
				}
			}
			return err
		}},
	} {
		c := asked()
		before := time.Now()
		noErr(t, tc.what, tc.fn(c))
		handedNow(tc.what, c, before, time.Now())
	}

	// Not asked yet: handed off (its time kept) but abandoned, until the
	// visitor writes.
	c := f.conversation(t, s, base)
	before := time.Now()
	_, err := s.SetWaiting(ctx, c.ID, true)
	noErr(t, "SetWaiting", err)
	after := time.Now()
	got := outcomeIs(t, s, raw, c.ID, domain.OutcomeAbandoned)
	stampedNow(t, "HandedAt", got.HandedAt, before, after)
	add(t, s, store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "hello"})
	got2 := outcomeIs(t, s, raw, c.ID, domain.OutcomeHandedOff)
	if !got2.HandedAt.Equal(got.HandedAt) {
		t.Fatalf("a visitor message moved HandedAt from %v to %v", got.HandedAt, got2.HandedAt)
	}

	// AutoAssign takes a waiting conversation: it was handed off when it
	// began to wait, and stays so.
	c = asked()
	_, err = s.SetWaiting(ctx, c.ID, true)
	noErr(t, "SetWaiting", err)
	waited := outcomeIs(t, s, raw, c.ID, domain.OutcomeHandedOff)
	_, err = s.Heartbeat(ctx, f.account.ID, op.ID, time.Now())
	noErr(t, "Heartbeat", err)
	out, err := s.AutoAssign(ctx, c.ID, op.ID, op.Name, 0, time.Now())
	noErr(t, "AutoAssign", err)
	if out != store.Assigned {
		t.Fatalf("AutoAssign = %v", out)
	}
	got = outcomeIs(t, s, raw, c.ID, domain.OutcomeHandedOff)
	if got.Mode != domain.ModeHuman || !got.HandedAt.Equal(waited.HandedAt) {
		t.Fatalf("auto-assigned: %+v; HandedAt was %v", got, waited.HandedAt)
	}

	// Handing back to the AI, or ending the wait, is no un-handing: the
	// outcome stays, and so does the handoff's time, also when the AI
	// answers again afterwards.
	c = asked()
	_, err = s.SetMode(ctx, c.ID, domain.ModeHuman)
	noErr(t, "SetMode human", err)
	handed := outcomeIs(t, s, raw, c.ID, domain.OutcomeHandedOff)
	_, err = s.SetMode(ctx, c.ID, domain.ModeAI)
	noErr(t, "SetMode ai", err)
	_, _, err = s.AddExchange(ctx,
		store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "and prices?"},
		store.NewMessage{ConversationID: c.ID, Role: domain.RoleAI, Text: "10 EUR", RequireMode: domain.ModeAI})
	noErr(t, "AddExchange", err)
	got = outcomeIs(t, s, raw, c.ID, domain.OutcomeHandedOff)
	if !got.HandedAt.Equal(handed.HandedAt) {
		t.Fatalf("HandedAt moved from %v to %v", handed.HandedAt, got.HandedAt)
	}
	c = asked()
	_, err = s.SetWaiting(ctx, c.ID, true)
	noErr(t, "SetWaiting", err)
	_, err = s.SetWaiting(ctx, c.ID, false)
	noErr(t, "SetWaiting false", err)
	outcomeIs(t, s, raw, c.ID, domain.OutcomeHandedOff)

	// A conversation that was never handed off stays so when it stops
	// waiting or is given to the AI it already has.
	c = asked()
	_, err = s.SetWaiting(ctx, c.ID, false)
	noErr(t, "SetWaiting false", err)
	_, err = s.SetMode(ctx, c.ID, domain.ModeAI)
	noErr(t, "SetMode ai", err)
	got = outcomeIs(t, s, raw, c.ID, domain.OutcomeResolved)
	if !got.HandedAt.IsZero() {
		t.Fatalf("never handed off, HandedAt %v", got.HandedAt)
	}
}

// testOutcomeHandoffsKeepTheFirst: a second handoff (another wait, a
// takeover after the wait, the deleted operator's conversations going
// back to the queue) never moves the first one's time, which the first
// response is measured from.
func testOutcomeHandoffsKeepTheFirst(t *testing.T, s store.Store, raw Raw) {
	ctx := t.Context()
	f := setup(t, s, many)
	op := deskUser(t, s, f.account.ID, "Oleg")
	c := f.conversation(t, s, base)
	add(t, s, store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "a person please", CreatedAt: base.Add(time.Second)})
	handoff := store.NewMessage{ConversationID: c.ID, Role: domain.RoleAI, Text: "Asking.", CreatedAt: base.Add(2 * time.Second),
		RequireMode: domain.ModeAI, SetWaiting: true}
	add(t, s, handoff)
	first := outcomeIs(t, s, raw, c.ID, domain.OutcomeHandedOff).HandedAt
	sameTime(t, "HandedAt", first, base.Add(2*time.Second))

	steps := []struct {
		what string
		fn   func() error
	}{
		{"SetWaiting false", func() error { _, err := s.SetWaiting(ctx, c.ID, false); return err }},
		{"SetWaiting true", func() error { _, err := s.SetWaiting(ctx, c.ID, true); return err }},
		{"TakeOver", func() error { _, _, err := s.TakeOver(ctx, c.ID, op.ID, op.Name); return err }},
		{"DeleteUser", func() error { return s.DeleteUser(ctx, f.account.ID, op.ID) }},
		{"SetMode human", func() error { _, err := s.SetMode(ctx, c.ID, domain.ModeHuman); return err }},
		{"Assign", func() error {
			owner, err := s.UserByEmail(ctx, f.account.Email)
			if err == nil {
				_, err = s.Assign(ctx, c.ID, owner.ID, owner.Name)
			}
			return err
		}},
	}
	for _, st := range steps {
		noErr(t, st.what, st.fn())
		got := outcomeIs(t, s, raw, c.ID, domain.OutcomeHandedOff)
		if !got.HandedAt.Equal(first) {
			t.Fatalf("after %s HandedAt is %v, was %v", st.what, got.HandedAt, first)
		}
		if st.what == "DeleteUser" && (got.Mode != domain.ModeAI || !got.Waiting) {
			t.Fatalf("the deleted operator's conversation: %+v", got)
		}
	}
}
