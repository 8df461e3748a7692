package storetest

import (
	"errors"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// The desk's inbox by latest activity and the waiting queue (issue 19).

// pageAll reads every page of f, size a page, and checks that nothing
// comes twice.
func pageAll(t *testing.T, s store.Store, accountID string, f store.ConversationFilter, size int) []domain.Conversation {
	t.Helper()
	f.Limit = size
	var all []domain.Conversation
	seen := map[string]bool{}
	for pages := 0; ; pages++ {
		if pages > 100 {
			t.Fatal("paging does not end")
		}
		page, err := s.Conversations(t.Context(), accountID, f)
		noErr(t, "Conversations", err)
		for _, c := range page.Conversations {
			if seen[c.ID] {
				t.Fatalf("%s returned twice", c.ID)
			}
			seen[c.ID] = true
		}
		all = append(all, page.Conversations...)
		if page.Next == "" {
			return all
		}
		f.Before = page.Next
	}
}

// sameState checks that the conversation as a write returned it, as read
// alone and as listed agree on its activity and its wait (SQLite's caches
// must hold what its file holds).
func sameState(t *testing.T, s store.Store, accountID string, c domain.Conversation) {
	t.Helper()
	got := conversation(t, s, c.ID)
	if !got.LastActivityAt.Equal(c.LastActivityAt) || !got.WaitingSince.Equal(c.WaitingSince) {
		t.Errorf("Conversation %s: activity %v, waiting since %v; the write returned %v, %v",
			c.ID, got.LastActivityAt, got.WaitingSince, c.LastActivityAt, c.WaitingSince)
	}
	for _, l := range pageAll(t, s, accountID, store.ConversationFilter{Order: store.ByActivity}, store.MaxPage) {
		if l.ID == c.ID && (!l.LastActivityAt.Equal(c.LastActivityAt) || !l.WaitingSince.Equal(c.WaitingSince)) {
			t.Errorf("listed %s: activity %v, waiting since %v; want %v, %v",
				c.ID, l.LastActivityAt, l.WaitingSince, c.LastActivityAt, c.WaitingSince)
		}
	}
}

// testActivityOrder: ByActivity lists the conversation with the newest
// visitor, AI or operator message (or the newest start) first; notes,
// status, mode and assignment changes do not move it; a message with an
// older time does not move it back; ByCreated keeps the start's order.
func testActivityOrder(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	a := f.conversation(t, s, base)
	b := f.conversation(t, s, base.Add(time.Minute))
	c := f.conversation(t, s, base.Add(2*time.Minute))
	sameTime(t, "a new conversation's activity", c.LastActivityAt, c.CreatedAt)
	byActivity := func(what string, want ...domain.Conversation) {
		t.Helper()
		sameIDs(t, what, pageAll(t, s, f.account.ID, store.ConversationFilter{Order: store.ByActivity}, 2), want...)
		sameIDs(t, what+", open", pageAll(t, s, f.account.ID, store.ConversationFilter{Order: store.ByActivity, Status: domain.StatusOpen}, 2), want...)
	}
	byActivity("by start", c, b, a)

	msg := func(conv domain.Conversation, n store.NewMessage, at time.Time) domain.Conversation {
		t.Helper()
		n.ConversationID, n.CreatedAt = conv.ID, at
		if n.Text == "" {
			n.Text = "hello"
		}
		_, got, err := s.AddMessage(ctx, n)
		noErr(t, "AddMessage", err)
		sameState(t, s, f.account.ID, got)
		return got
	}
	a = msg(a, store.NewMessage{Role: domain.RoleVisitor}, base.Add(3*time.Minute))
	sameTime(t, "activity after a visitor message", a.LastActivityAt, base.Add(3*time.Minute))
	byActivity("a visitor message", a, c, b)
	msg(b, store.NewMessage{Role: domain.RoleAI}, base.Add(4*time.Minute))
	byActivity("an AI message", b, a, c)
	c = msg(c, store.NewMessage{Role: domain.RoleOperator, OperatorName: "Ana", SetMode: domain.ModeHuman}, base.Add(5*time.Minute))
	byActivity("an operator message", c, b, a)
	// Both messages of an exchange: the reply's time.
	ex, _, err := s.AddExchange(ctx,
		store.NewMessage{ConversationID: a.ID, Role: domain.RoleVisitor, Text: "hi", CreatedAt: base.Add(6 * time.Minute)},
		store.NewMessage{ConversationID: a.ID, Role: domain.RoleAI, Text: "hello", CreatedAt: base.Add(7 * time.Minute), RequireMode: domain.ModeAI})
	noErr(t, "AddExchange", err)
	sameTime(t, "activity after an exchange", ex.LastActivityAt, base.Add(7*time.Minute))
	sameState(t, s, f.account.ID, ex)
	byActivity("an exchange", a, c, b)

	// Not activity: a note, resolving and reopening, assigning, the mode,
	// the wait.
	_, err = s.AddNote(ctx, store.NewNote{AccountID: f.account.ID, ConversationID: b.ID, AuthorID: "u", AuthorName: "Ana", Text: "call back"})
	noErr(t, "AddNote", err)
	for _, st := range []domain.Status{domain.StatusResolved, domain.StatusOpen} {
		_, err = s.SetStatus(ctx, b.ID, st)
		noErr(t, "SetStatus", err)
	}
	_, err = s.Assign(ctx, b.ID, "u", "Ana")
	noErr(t, "Assign", err)
	_, err = s.SetMode(ctx, c.ID, domain.ModeAI)
	noErr(t, "SetMode", err)
	_, err = s.SetWaiting(ctx, c.ID, true)
	noErr(t, "SetWaiting", err)
	byActivity("after a note, status, assignment, mode and wait", a, c, b)
	sameTime(t, "b's activity", conversation(t, s, b.ID).LastActivityAt, base.Add(4*time.Minute))

	// A message given an older time does not move the activity back.
	old := msg(a, store.NewMessage{Role: domain.RoleVisitor}, base)
	sameTime(t, "activity after an older message", old.LastActivityAt, base.Add(7*time.Minute))

	// The start's order is the same as ever.
	sameIDs(t, "by start", pageAll(t, s, f.account.ID, store.ConversationFilter{}, 2), c, b, a)
	// Another account sees none of them.
	other := setup(t, s, many)
	if got := pageAll(t, s, other.account.ID, store.ConversationFilter{Order: store.ByActivity}, 10); len(got) != 0 {
		t.Errorf("another account lists %v", ids(got))
	}
}

// testActivityPaging: paging by activity visits every conversation once
// (ties on the time broken by the id), in every view's filter; a
// conversation that moves while a client pages is not repeated (it went
// to the front, before the cursor) and the others are all seen; a cursor
// of another order is refused.
func testActivityPaging(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	u := deskUser(t, s, f.account.ID, "Ana")
	var all []domain.Conversation
	for i := range 12 {
		// Pairs share a start, so the id breaks ties.
		c := f.conversation(t, s, base.Add(time.Duration(i/2)*time.Second))
		switch {
		case i%3 == 0:
			_, err := s.Assign(ctx, c.ID, u.ID, "Ana")
			noErr(t, "Assign", err)
		case i == 2 || i == 7 || i == 11:
			// Every status by activity merges the open and the resolved.
			_, err := s.SetStatus(ctx, c.ID, domain.StatusResolved)
			noErr(t, "SetStatus", err)
		}
		all = append(all, c)
	}
	// The oldest conversation talks last: it leads.
	_, moved, err := s.AddMessage(ctx, store.NewMessage{ConversationID: all[0].ID, Role: domain.RoleVisitor, Text: "hi", CreatedAt: base.Add(time.Hour)})
	noErr(t, "AddMessage", err)
	for _, size := range []int{1, 3, 5, 11, 12} {
		got := pageAll(t, s, f.account.ID, store.ConversationFilter{Order: store.ByActivity}, size)
		if len(got) != len(all) || got[0].ID != moved.ID {
			t.Fatalf("pages of %d: %v, want %d conversations, %s first", size, ids(got), len(all), moved.ID)
		}
		for i := 1; i < len(got); i++ {
			p, c := got[i-1], got[i]
			if c.LastActivityAt.After(p.LastActivityAt) || c.LastActivityAt.Equal(p.LastActivityAt) && c.ID > p.ID {
				t.Fatalf("pages of %d: %s (%v) after %s (%v): not latest first", size, c.ID, c.LastActivityAt, p.ID, p.LastActivityAt)
			}
		}
	}
	mine := pageAll(t, s, f.account.ID, store.ConversationFilter{Order: store.ByActivity, Status: domain.StatusOpen, Assignee: &u.ID}, 2)
	if len(mine) != 4 || mine[0].ID != moved.ID {
		t.Errorf("mine: %v, want 4, %s first", ids(mine), moved.ID)
	}
	none := ""
	if un := pageAll(t, s, f.account.ID, store.ConversationFilter{Order: store.ByActivity, Status: domain.StatusOpen, Assignee: &none}, 3); len(un) != 5 {
		t.Errorf("unassigned: %d, want 5", len(un))
	}
	if res := pageAll(t, s, f.account.ID, store.ConversationFilter{Order: store.ByActivity, Status: domain.StatusResolved}, 2); len(res) != 3 {
		t.Errorf("resolved: %d, want 3", len(res))
	}

	// A conversation moves while a client pages: the first page ends
	// before it, then it gets a message.
	page, err := s.Conversations(ctx, f.account.ID, store.ConversationFilter{Order: store.ByActivity, Limit: 3})
	noErr(t, "Conversations", err)
	seen := map[string]bool{}
	for _, c := range page.Conversations {
		seen[c.ID] = true
	}
	rest, err := s.Conversations(ctx, f.account.ID, store.ConversationFilter{Order: store.ByActivity, Limit: 1, Before: page.Next})
	noErr(t, "Conversations", err)
	mover := rest.Conversations[0] // the next page's first, about to move
	_, _, err = s.AddMessage(ctx, store.NewMessage{ConversationID: mover.ID, Role: domain.RoleVisitor, Text: "still there?", CreatedAt: base.Add(2 * time.Hour)})
	noErr(t, "AddMessage", err)
	f2 := store.ConversationFilter{Order: store.ByActivity, Limit: 3, Before: page.Next}
	for _, c := range pageAll(t, s, f.account.ID, f2, 3) {
		if seen[c.ID] || c.ID == mover.ID {
			t.Fatalf("%s listed again after it moved (or was on the first page)", c.ID)
		}
		seen[c.ID] = true
	}
	if len(seen) != len(all)-1 {
		t.Errorf("paged %d conversations while one moved, want all %d but the mover", len(seen), len(all)-1)
	}
	if first, _ := s.Conversations(ctx, f.account.ID, store.ConversationFilter{Order: store.ByActivity, Limit: 1}); first.Conversations[0].ID != mover.ID {
		t.Errorf("the first page starts with %s, want the one that moved, %s", first.Conversations[0].ID, mover.ID)
	}

	// Cursors keep their order.
	_, err = s.Conversations(ctx, f.account.ID, store.ConversationFilter{Before: page.Next})
	wantErr(t, "an activity cursor on the start's order", err, store.ErrBadCursor)
	byStart, err := s.Conversations(ctx, f.account.ID, store.ConversationFilter{Limit: 1})
	noErr(t, "Conversations", err)
	_, err = s.Conversations(ctx, f.account.ID, store.ConversationFilter{Order: store.ByActivity, Before: byStart.Next})
	wantErr(t, "a start cursor on the activity order", err, store.ErrBadCursor)
}

// testWaitingSince: a wait's start is stored when the conversation begins
// to wait (by a message, SetWaiting, or its operator's deletion), kept
// through the messages while it waits, cleared when it stops (takeover,
// an operator's reply, assignment, resolving, SetWaiting false); the queue
// pages longest waiting first.
func testWaitingSince(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	handoff := func(c domain.Conversation, at time.Time) domain.Conversation {
		t.Helper()
		_, got, err := s.AddMessage(ctx, store.NewMessage{ConversationID: c.ID, Role: domain.RoleAI, Text: "A person will answer.",
			CreatedAt: at, RequireMode: domain.ModeAI, SetWaiting: true})
		noErr(t, "AddMessage", err)
		sameState(t, s, f.account.ID, got)
		return got
	}
	first := f.conversation(t, s, base)
	if !first.WaitingSince.IsZero() {
		t.Fatalf("a new conversation waits since %v", first.WaitingSince)
	}
	first = handoff(first, base.Add(time.Minute))
	sameTime(t, "waiting since", first.WaitingSince, base.Add(time.Minute))

	// The visitor writes again, the AI answers, misses: the wait goes on
	// from where it began.
	_, got, err := s.AddMessage(ctx, store.NewMessage{ConversationID: first.ID, Role: domain.RoleVisitor, Text: "hello?", CreatedAt: base.Add(10 * time.Minute)})
	noErr(t, "AddMessage", err)
	sameTime(t, "waiting since, after the visitor wrote again", got.WaitingSince, base.Add(time.Minute))
	sameState(t, s, f.account.ID, got)
	got, _, err = s.AddExchange(ctx,
		store.NewMessage{ConversationID: first.ID, Role: domain.RoleVisitor, Text: "anyone?", CreatedAt: base.Add(11 * time.Minute)},
		store.NewMessage{ConversationID: first.ID, Role: domain.RoleAI, Text: "Still asking.", CreatedAt: base.Add(11 * time.Minute), RequireMode: domain.ModeAI, SetWaiting: true, Unanswered: true})
	noErr(t, "AddExchange", err)
	sameTime(t, "waiting since, after an exchange", got.WaitingSince, base.Add(time.Minute))
	sameState(t, s, f.account.ID, got)

	// Started later, waiting longer; and one waiting for less.
	longer := handoff(f.conversation(t, s, base.Add(30*time.Second)), base.Add(40*time.Second))
	shorter := handoff(f.conversation(t, s, base.Add(-time.Hour)), base.Add(20*time.Minute))
	f.conversation(t, s, base.Add(time.Second)) // does not wait
	yes := true
	queue := store.ConversationFilter{Order: store.ByWaiting, Waiting: &yes, Status: domain.StatusOpen, Mode: domain.ModeAI}
	for _, size := range []int{1, 2, 10} {
		sameIDs(t, "the queue, longest first", pageAll(t, s, f.account.ID, queue, size), longer, first, shorter)
	}
	_, err = s.Conversations(ctx, f.account.ID, store.ConversationFilter{Order: store.ByWaiting})
	if !errors.As(err, new(*domain.InvalidError)) {
		t.Errorf("the waiting order without the waiting filter: %v, want invalid", err)
	}

	// Each way out of the wait clears it.
	stops := map[string]func(id string){
		"takeover": func(id string) { _, _, err := s.TakeOver(ctx, id, "u", "Ana"); noErr(t, "TakeOver", err) },
		"resolve":  func(id string) { _, err := s.SetStatus(ctx, id, domain.StatusResolved); noErr(t, "SetStatus", err) },
		"assign":   func(id string) { _, err := s.Assign(ctx, id, "u", "Ana"); noErr(t, "Assign", err) },
		"SetMode":  func(id string) { _, err := s.SetMode(ctx, id, domain.ModeHuman); noErr(t, "SetMode", err) },
		"unwait":   func(id string) { _, err := s.SetWaiting(ctx, id, false); noErr(t, "SetWaiting", err) },
		"reply": func(id string) {
			_, _, err := s.AddMessage(ctx, store.NewMessage{ConversationID: id, Role: domain.RoleOperator, Text: "Hi", OperatorName: "Ana", SetMode: domain.ModeHuman})
			noErr(t, "AddMessage", err)
		},
	}
	for name, stop := range stops {
		c := handoff(f.conversation(t, s, base), base.Add(time.Minute))
		stop(c.ID)
		got := conversation(t, s, c.ID)
		if got.Waiting || !got.WaitingSince.IsZero() {
			t.Errorf("%s: waiting %v since %v, want neither", name, got.Waiting, got.WaitingSince)
		}
		for _, l := range pageAll(t, s, f.account.ID, store.ConversationFilter{Order: store.ByActivity}, store.MaxPage) {
			if l.ID == c.ID && !l.WaitingSince.IsZero() {
				t.Errorf("%s: listed waiting since %v", name, l.WaitingSince)
			}
		}
	}

	// A new wait has a new start: SetWaiting stamps it now.
	c := f.conversation(t, s, base)
	before := time.Now()
	_, err = s.SetWaiting(ctx, c.ID, true)
	noErr(t, "SetWaiting", err)
	since := conversation(t, s, c.ID).WaitingSince
	stampedNow(t, "SetWaiting's start", since, before, time.Now())
	_, err = s.SetWaiting(ctx, c.ID, true) // already waiting: unchanged
	noErr(t, "SetWaiting", err)
	sameTime(t, "SetWaiting again", conversation(t, s, c.ID).WaitingSince, since)

	// An operator deleted: their conversations wait from then on.
	u := deskUser(t, s, f.account.ID, "Otto")
	held := f.conversation(t, s, base)
	_, err = s.Assign(ctx, held.ID, u.ID, "Otto")
	noErr(t, "Assign", err)
	before = time.Now()
	noErr(t, "DeleteUser", s.DeleteUser(ctx, f.account.ID, u.ID))
	stampedNow(t, "waiting since the operator's deletion", conversation(t, s, held.ID).WaitingSince, before, time.Now())
}
