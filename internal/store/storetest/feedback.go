package storetest

import (
	"sync"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

// testFeedback: the visitor's thumbs on an AI answer is stored on the
// message, changeable, one per message; the conversation's counts and
// outcome follow it in the same write (a "Not helpful" makes an answered
// conversation unanswered, taking it back makes it resolved again); only
// an AI message of that conversation takes one.
func testFeedback(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	c := f.conversation(t, s, base)

	at := func(d time.Duration) time.Time { return base.Add(d * time.Second) }
	msg := func(role domain.Role, text string, sec time.Duration) store.NewMessage {
		return store.NewMessage{ConversationID: c.ID, Role: role, Text: text, CreatedAt: at(sec)}
	}
	_, firstSeq, err := s.AddExchange(ctx, msg(domain.RoleVisitor, "opening hours?", 1), msg(domain.RoleAI, "9 to 18", 2))
	noErr(t, "AddExchange", err)
	add(t, s, msg(domain.RoleVisitor, "and on sunday?", 3))
	second, _ := add(t, s, msg(domain.RoleAI, "closed on sundays", 4))

	set := func(seq int64, helpful, wantChanged bool, want domain.Conversation) {
		t.Helper()
		got, changed, err := s.SetFeedback(ctx, c.ID, seq, helpful)
		noErr(t, "SetFeedback", err)
		if changed != wantChanged || got.Helpful != want.Helpful || got.NotHelpful != want.NotHelpful || got.Outcome() != want.Outcome() {
			t.Fatalf("SetFeedback(%d, %v) = helpful %d, not helpful %d, %s, changed %v; want %d, %d, %s, %v",
				seq, helpful, got.Helpful, got.NotHelpful, got.Outcome(), changed, want.Helpful, want.NotHelpful, want.Outcome(), wantChanged)
		}
		stored, err := s.Conversation(ctx, c.ID)
		noErr(t, "Conversation", err)
		if stored != got {
			t.Fatalf("after SetFeedback(%d, %v): stored %+v, returned %+v", seq, helpful, stored, got)
		}
	}
	answered := domain.Conversation{Asked: true, Answered: true} // resolved, no thumbs
	if answered.Outcome() != domain.OutcomeResolved {
		t.Fatalf("fixture: %s", answered.Outcome())
	}
	counts := func(helpful, notHelpful int) domain.Conversation {
		c := answered
		c.Helpful, c.NotHelpful = helpful, notHelpful
		return c
	}

	set(firstSeq, true, true, counts(1, 0))
	set(firstSeq, true, false, counts(1, 0)) // the same again changes nothing
	set(second.Seq, false, true, counts(1, 1))
	set(firstSeq, false, true, counts(0, 2)) // changed: up becomes down
	if got := counts(0, 2).Outcome(); got != domain.OutcomeUnanswered {
		t.Fatalf("a thumbs down leaves the outcome %s", got)
	}
	set(second.Seq, true, true, counts(1, 1))
	set(firstSeq, true, true, counts(2, 0)) // every answer helpful again: resolved

	// Every read of the messages says which thumbs each holds.
	wantThumbs := map[int64]bool{firstSeq: true, second.Seq: true}
	for _, m := range messages(t, s, c.ID) {
		want, ok := wantThumbs[m.Seq]
		if (m.Helpful != nil) != ok || (ok && *m.Helpful != want) {
			t.Errorf("message %d (%s) helpful %v, want %v (%v)", m.Seq, m.Role, m.Helpful, want, ok)
		}
	}
	after, err := s.MessagesAfter(ctx, c.ID, domain.RoleAI, 0, 10)
	noErr(t, "MessagesAfter", err)
	if len(after) != 2 || after[0].Helpful == nil || !*after[0].Helpful || after[1].Helpful == nil || !*after[1].Helpful {
		t.Errorf("MessagesAfter: %+v", after)
	}

	// Only an AI message of this conversation takes a thumbs: a visitor's,
	// an operator's, another conversation's answer, no message, and no
	// conversation are not found, and change nothing.
	op, _ := add(t, s, store.NewMessage{ConversationID: c.ID, Role: domain.RoleOperator, Text: "anything else?", OperatorName: "Ana", CreatedAt: at(5)})
	other := f.conversation(t, s, base)
	_, otherSeq, err := s.AddExchange(ctx,
		store.NewMessage{ConversationID: other.ID, Role: domain.RoleVisitor, Text: "price?", CreatedAt: at(6)},
		store.NewMessage{ConversationID: other.ID, Role: domain.RoleAI, Text: "10 EUR", CreatedAt: at(7)})
	noErr(t, "AddExchange other", err)
	visitorSeq := messages(t, s, c.ID)[0].Seq
	before, err := s.Conversation(ctx, c.ID)
	noErr(t, "Conversation", err)
	for _, tc := range []struct {
		what string
		conv string
		seq  int64
	}{
		{"a visitor message", c.ID, visitorSeq},
		{"an operator message", c.ID, op.Seq},
		{"another conversation's answer", c.ID, otherSeq},
		{"no message", c.ID, otherSeq + 1000},
		{"no conversation", secret.ConversationID(), firstSeq},
	} {
		_, _, err := s.SetFeedback(ctx, tc.conv, tc.seq, false)
		wantErr(t, "SetFeedback on "+tc.what, err, domain.ErrNotFound)
	}
	if got, err := s.Conversation(ctx, c.ID); err != nil || got != before {
		t.Errorf("refused thumbs changed the conversation: %+v (%v), was %+v", got, err, before)
	}
	if got, err := s.Conversation(ctx, other.ID); err != nil || got.Helpful != 0 || got.NotHelpful != 0 {
		t.Errorf("refused thumbs changed the other conversation: %+v (%v)", got, err)
	}
	for _, m := range messages(t, s, other.ID) {
		if m.Helpful != nil {
			t.Errorf("other conversation's message %d has thumbs %v", m.Seq, *m.Helpful)
		}
	}
}

// testFeedbackConcurrent: thumbs given at once on the answers of one
// conversation lose none of each other's counts (each write reads the
// counts the previous one left: SQLite's single writer, PostgreSQL's lock
// on the conversation's row).
func testFeedbackConcurrent(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	c := f.conversation(t, s, base)
	const answers = 12
	seqs := make([]int64, answers)
	for i := range seqs {
		_, seq, err := s.AddExchange(ctx,
			store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "q", CreatedAt: base},
			store.NewMessage{ConversationID: c.ID, Role: domain.RoleAI, Text: "a", CreatedAt: base, RequireMode: domain.ModeAI})
		noErr(t, "AddExchange", err)
		seqs[i] = seq
	}
	// Every answer gets a thumbs up and then, for every other one, a
	// thumbs down, all answers at once.
	var wg sync.WaitGroup
	for i, seq := range seqs {
		wg.Go(func() {
			if _, _, err := s.SetFeedback(ctx, c.ID, seq, true); err != nil {
				t.Error(err)
			}
			if i%2 == 1 {
				if _, _, err := s.SetFeedback(ctx, c.ID, seq, false); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	got, err := s.Conversation(ctx, c.ID)
	noErr(t, "Conversation", err)
	if got.Helpful != answers/2 || got.NotHelpful != answers/2 || got.Outcome() != domain.OutcomeUnanswered {
		t.Errorf("after concurrent thumbs: helpful %d, not helpful %d, %s; want %d, %d, unanswered",
			got.Helpful, got.NotHelpful, got.Outcome(), answers/2, answers/2)
	}
}
