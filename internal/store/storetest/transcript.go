package storetest

import (
	"errors"
	"slices"
	"sync"
	"testing"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

// testLatestMessages: a transcript is read newest page first, each page
// oldest first, with More while older messages exist, and a before that
// is not one of the conversation's messages is refused.
func testLatestMessages(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	c := f.conversation(t, s, base)
	other := f.conversation(t, s, base)
	var all []domain.Message
	var foreign domain.Message
	for i := range 7 {
		m, _ := add(t, s, store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: string(rune('a' + i)), CreatedAt: base})
		all = append(all, m)
		if i == 3 { // another conversation's message in between
			foreign, _ = add(t, s, store.NewMessage{ConversationID: other.ID, Role: domain.RoleVisitor, Text: "x", CreatedAt: base})
		}
	}

	page := func(before int64, limit int) store.MessagePage {
		t.Helper()
		p, err := s.LatestMessages(ctx, c.ID, before, limit)
		noErr(t, "LatestMessages", err)
		return p
	}
	p := page(0, 3)
	if !slices.Equal(p.Messages, all[4:]) || !p.More {
		t.Errorf("newest 3 = %+v, more %v; want %+v, true", p.Messages, p.More, all[4:])
	}
	p = page(p.Messages[0].Seq, 3)
	if !slices.Equal(p.Messages, all[1:4]) || !p.More {
		t.Errorf("the 3 before = %+v, more %v; want %+v, true", p.Messages, p.More, all[1:4])
	}
	p = page(p.Messages[0].Seq, 3)
	if !slices.Equal(p.Messages, all[:1]) || p.More {
		t.Errorf("the oldest = %+v, more %v; want %+v, false", p.Messages, p.More, all[:1])
	}
	// Exactly a page's worth left: no More.
	if p = page(all[3].Seq, 3); !slices.Equal(p.Messages, all[:3]) || p.More {
		t.Errorf("the 3 oldest = %+v, more %v; want %+v, false", p.Messages, p.More, all[:3])
	}
	// Before the first message: an empty page, not an error.
	if p = page(all[0].Seq, 3); len(p.Messages) != 0 || p.More || p.Messages == nil {
		t.Errorf("before the first = %#v, want an empty page", p)
	}
	// The whole transcript fits the default page.
	if p = page(0, 0); !slices.Equal(p.Messages, all) || p.More {
		t.Errorf("default page = %+v, more %v", p.Messages, p.More)
	}

	// Not a message of this conversation: another's, or none at all.
	for _, before := range []int64{foreign.Seq, all[6].Seq + 1000, -1} {
		if _, err := s.LatestMessages(ctx, c.ID, before, 3); !errors.Is(err, store.ErrBadMessageCursor) {
			t.Errorf("before %d: error %v, want ErrBadMessageCursor", before, err)
		}
	}
	var invalid *domain.InvalidError
	if !errors.As(store.ErrBadMessageCursor, &invalid) {
		t.Error("ErrBadMessageCursor is not an InvalidError (a 400)")
	}
	// An unknown conversation has no messages.
	p, err := s.LatestMessages(ctx, secret.ConversationID(), 0, 3)
	if err != nil || len(p.Messages) != 0 || p.More {
		t.Errorf("unknown conversation: %+v, %v", p, err)
	}
}

// testMessagePageLimits: the page size is clamped as MessagePageSize says.
func testMessagePageLimits(t *testing.T, s store.Store) {
	f := setup(t, s, many)
	c := f.conversation(t, s, base)
	// From several writers: a store commits their writes together.
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < store.MaxMessagePage+1; i += 8 {
				if _, _, err := s.AddMessage(t.Context(), store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "m", CreatedAt: base}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	for limit, want := range map[int]int{0: store.DefaultMessagePage, -5: 1, 1: 1, 10_000: store.MaxMessagePage} {
		p, err := s.LatestMessages(t.Context(), c.ID, 0, limit)
		noErr(t, "LatestMessages", err)
		if len(p.Messages) != want || !p.More {
			t.Errorf("limit %d: %d messages, more %v; want %d, true", limit, len(p.Messages), p.More, want)
		}
	}
}

// capped is a message of role under a cap of max.
func capped(convID string, role domain.Role, max int) store.NewMessage {
	m := store.NewMessage{ConversationID: convID, Role: role, Text: string(role), CreatedAt: base, MaxMessages: max}
	if role == domain.RoleOperator {
		m.OperatorName = "Olga"
	}
	return m
}

// testMessageCap: every message counts, those stored before a cap was set
// too. A visitor's message fits while the conversation holds fewer than
// the cap; an AI reply also at the cap (the reply to the message that
// reached it); an operator's message while it holds fewer than twice the
// cap. A message that does not fit is ErrConversationFull and changes
// nothing.
func testMessageCap(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	c := f.conversation(t, s, base)
	const max = 3
	// Stored without a cap, and counted once one applies.
	add(t, s, store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "before", CreatedAt: base})
	add(t, s, capped(c.ID, domain.RoleAI, max))
	add(t, s, capped(c.ID, domain.RoleVisitor, max)) // the third: the cap is reached

	before, err := s.Conversation(ctx, c.ID)
	noErr(t, "Conversation", err)
	_, _, err = s.AddMessage(ctx, capped(c.ID, domain.RoleVisitor, max))
	wantErr(t, "a visitor's message at the cap", err, domain.ErrConversationFull)
	_, _, err = s.AddExchange(ctx, capped(c.ID, domain.RoleVisitor, max), capped(c.ID, domain.RoleAI, max))
	wantErr(t, "an exchange at the cap", err, domain.ErrConversationFull)
	if after, err := s.Conversation(ctx, c.ID); err != nil || after != before {
		t.Errorf("a refused message changed the conversation: %+v (%v), was %+v", after, err, before)
	}
	if n := len(messages(t, s, c.ID)); n != 3 {
		t.Fatalf("%d messages after the refusals, want 3", n)
	}

	add(t, s, capped(c.ID, domain.RoleAI, max)) // the reply to the last one: 4
	_, _, err = s.AddMessage(ctx, capped(c.ID, domain.RoleAI, max))
	wantErr(t, "a second AI message past the cap", err, domain.ErrConversationFull)
	// Operators answer until twice the cap.
	add(t, s, capped(c.ID, domain.RoleOperator, max)) // 5
	add(t, s, capped(c.ID, domain.RoleOperator, max)) // 6
	_, _, err = s.AddMessage(ctx, capped(c.ID, domain.RoleOperator, max))
	wantErr(t, "an operator's message at twice the cap", err, domain.ErrConversationFull)
	// Without a cap the store takes anything; a higher cap makes room.
	add(t, s, store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "uncapped", CreatedAt: base})
	add(t, s, capped(c.ID, domain.RoleVisitor, 8))
	if n := len(messages(t, s, c.ID)); n != 8 {
		t.Errorf("%d messages, want 8", n)
	}
	// The cap is per conversation.
	other := f.conversation(t, s, base)
	add(t, s, capped(other.ID, domain.RoleVisitor, 1))
	_, _, err = s.AddMessage(ctx, capped(other.ID, domain.RoleVisitor, 1))
	wantErr(t, "the second visitor message under a cap of 1", err, domain.ErrConversationFull)
}

// testMessageCapExchange: an exchange is admitted as its visitor message
// is, and its reply then always fits; the mode rule comes first.
func testMessageCapExchange(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	c := f.conversation(t, s, base)
	const max = 3
	exchange := func() (bool, error) {
		_, replySeq, err := s.AddExchange(ctx, capped(c.ID, domain.RoleVisitor, max), capped(c.ID, domain.RoleAI, max))
		return replySeq != 0, err
	}
	for i := range 2 { // 2, then 4: the reply passes the cap by one
		if stored, err := exchange(); err != nil || !stored {
			t.Fatalf("exchange %d: stored %v, %v", i+1, stored, err)
		}
	}
	if _, err := exchange(); !errors.Is(err, domain.ErrConversationFull) {
		t.Errorf("exchange past the cap: %v, want ErrConversationFull", err)
	}
	if n := len(messages(t, s, c.ID)); n != 4 {
		t.Errorf("%d messages, want 4", n)
	}
	// Taken over and full: the mode is what a chat is told about first.
	_, err := s.SetMode(ctx, c.ID, domain.ModeHuman)
	noErr(t, "SetMode", err)
	ai := capped(c.ID, domain.RoleAI, max)
	ai.RequireMode = domain.ModeAI
	_, _, err = s.AddMessage(ctx, ai)
	wantErr(t, "an AI reply after a takeover", err, domain.ErrModeChanged)
}

// testMessageCapConcurrent: 50 writes racing into one conversation with a
// cap of 10 store exactly what the cap allows; every other one is
// ErrConversationFull.
func testMessageCapConcurrent(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	const writers, max = 50, 10

	race := func(write func() error) (stored, full int) {
		t.Helper()
		errs := make(chan error, writers)
		start := make(chan struct{})
		for range writers {
			go func() {
				<-start
				errs <- write()
			}()
		}
		close(start)
		for range writers {
			switch err := <-errs; {
			case err == nil:
				stored++
			case errors.Is(err, domain.ErrConversationFull):
				full++
			default:
				t.Errorf("a racing write: %v", err)
			}
		}
		return stored, full
	}

	t.Run("AddMessage", func(t *testing.T) {
		c := f.conversation(t, s, base)
		stored, full := race(func() error {
			_, _, err := s.AddMessage(ctx, capped(c.ID, domain.RoleVisitor, max))
			return err
		})
		if n := len(messages(t, s, c.ID)); stored != max || full != writers-max || n != max {
			t.Errorf("%d stored, %d refused, %d in the transcript; want %d, %d, %d", stored, full, n, max, writers-max, max)
		}
	})
	t.Run("AddExchange", func(t *testing.T) {
		c := f.conversation(t, s, base)
		stored, full := race(func() error {
			_, replySeq, err := s.AddExchange(ctx, capped(c.ID, domain.RoleVisitor, max), capped(c.ID, domain.RoleAI, max))
			if err == nil && replySeq == 0 {
				t.Error("an admitted exchange without its reply")
			}
			return err
		})
		if n := len(messages(t, s, c.ID)); stored != max/2 || full != writers-max/2 || n != max {
			t.Errorf("%d exchanges stored, %d refused, %d messages; want %d, %d, %d", stored, full, n, max/2, writers-max/2, max)
		}
	})
	t.Run("visitor then reply", func(t *testing.T) {
		// As a chat answered by an LLM: the message first, the reply after.
		c := f.conversation(t, s, base)
		stored, _ := race(func() error {
			if _, _, err := s.AddMessage(ctx, capped(c.ID, domain.RoleVisitor, max)); err != nil {
				return err
			}
			_, _, err := s.AddMessage(ctx, capped(c.ID, domain.RoleAI, max))
			return err
		})
		ms := messages(t, s, c.ID)
		visitors := 0
		for _, m := range ms {
			if m.Role == domain.RoleVisitor {
				visitors++
			}
		}
		// Visitors stop at the cap; one reply may pass it.
		if len(ms) < max || len(ms) > max+1 || visitors > max || stored > max {
			t.Errorf("%d messages (%d from the visitor), %d chats answered; want %d or %d, at most %d, at most %d",
				len(ms), visitors, stored, max, max+1, max, max)
		}
	})
}
