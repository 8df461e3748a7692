package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

// fromDisk reads a conversation past the cache: what is committed.
func fromDisk(t *testing.T, s *Store, id string) domain.Conversation {
	t.Helper()
	c, err := scanConversation(s.r.QueryRowContext(context.Background(), `SELECT `+convCols+` FROM conversations WHERE id = ?`, id))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type convFixture struct {
	s    *Store
	acc  domain.Account
	ag   domain.Agent
	conv domain.Conversation
}

// newAgentFixture is a fresh store with one account, allowed any number
// of conversations, and one agent: what the cache tests and the
// benchmarks start from.
func newAgentFixture(tb testing.TB) convFixture {
	tb.Helper()
	s := openTemp(tb)
	ctx := context.Background()
	acc, err := s.CreateAccount(ctx, store.NewAccount{Email: "o@example.com", Name: "O", PasswordHash: "h", Limits: domain.Limits{MonthlyConversations: 1 << 30}})
	if err != nil {
		tb.Fatal(err)
	}
	ag, err := s.CreateAgent(ctx, store.NewAgent{AccountID: acc.ID, ChatbotName: "Bot", Key: secret.WidgetKey()})
	if err != nil {
		tb.Fatal(err)
	}
	return convFixture{s: s, acc: acc, ag: ag}
}

// newConversation starts a conversation of f's agent.
func (f convFixture) newConversation(tb testing.TB) domain.Conversation {
	tb.Helper()
	conv, err := f.s.CreateConversation(context.Background(), store.NewConversation{ID: secret.ConversationID(), AgentID: f.ag.ID, AccountID: f.acc.ID, VisitorID: secret.VisitorID(), PageURL: "https://example.com/", CreatedAt: time.Now()})
	if err != nil {
		tb.Fatal(err)
	}
	return conv
}

// newConvFixture is newAgentFixture with one conversation.
func newConvFixture(tb testing.TB) convFixture {
	tb.Helper()
	f := newAgentFixture(tb)
	f.conv = f.newConversation(tb)
	return f
}

// raceReaders runs read on 4 goroutines, over and over, until the
// returned stop is called: readers racing to fill a cache while the test
// writes.
func raceReaders(t *testing.T, read func() error) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				if err := read(); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	return func() {
		close(done)
		wg.Wait()
	}
}

// TestConversationCacheFollowsEveryWrite: with readers racing to fill the
// cache, once any kind of write returns — one that changes the
// conversation, one refused, one that changes many — Conversation returns
// exactly what is on disk.
func TestConversationCacheFollowsEveryWrite(t *testing.T) {
	t.Parallel()
	f := newConvFixture(t)
	s, ctx, id := f.s, t.Context(), f.conv.ID
	user, err := s.CreateUser(ctx, store.NewUser{AccountID: f.acc.ID, Email: "op@example.com", Name: "Op", PasswordHash: "h", Role: domain.UserOperator})
	if err != nil {
		t.Fatal(err)
	}

	stop := raceReaders(t, func() error { _, err := s.Conversation(ctx, id); return err })
	visitor := func(text string) store.NewMessage {
		return store.NewMessage{ConversationID: id, Role: domain.RoleVisitor, Text: text, CreatedAt: time.Now()}
	}
	ai := func(text string, unanswered, waiting bool) store.NewMessage {
		return store.NewMessage{ConversationID: id, Role: domain.RoleAI, Text: text, CreatedAt: time.Now(),
			RequireMode: domain.ModeAI, Unanswered: unanswered, SetWaiting: waiting}
	}
	writes := []struct {
		name  string
		write func() error
	}{
		{"visitor message", func() error { _, _, err := s.AddMessage(ctx, visitor("hello")); return err }},
		{"exchange, unanswered", func() error { _, _, err := s.AddExchange(ctx, visitor("what?"), ai("sorry", true, false)); return err }},
		{"exchange, handoff", func() error {
			_, _, err := s.AddExchange(ctx, visitor("again?"), ai("a person", true, true))
			return err
		}},
		{"set waiting off", func() error { _, err := s.SetWaiting(ctx, id, false); return err }},
		{"set waiting on", func() error { _, err := s.SetWaiting(ctx, id, true); return err }},
		{"take over", func() error { _, _, err := s.TakeOver(ctx, id, user.ID, user.Name); return err }},
		{"AI reply refused after the takeover", func() error {
			if _, _, err := s.AddMessage(ctx, ai("late", false, false)); !errors.Is(err, domain.ErrModeChanged) {
				return errors.New("the AI's reply was not refused")
			}
			return nil
		}},
		{"operator message", func() error {
			_, _, err := s.AddMessage(ctx, store.NewMessage{ConversationID: id, Role: domain.RoleOperator, Text: "hi", OperatorName: user.Name, CreatedAt: time.Now()})
			return err
		}},
		{"operator deleted", func() error { return s.DeleteUser(ctx, f.acc.ID, user.ID) }},
		{"set mode human", func() error { _, err := s.SetMode(ctx, id, domain.ModeHuman); return err }},
		{"set mode ai", func() error { _, err := s.SetMode(ctx, id, domain.ModeAI); return err }},
		{"exchange, answered", func() error {
			_, _, err := s.AddExchange(ctx, visitor("hours?"), ai("9 to 5", false, false))
			return err
		}},
	}
	for _, w := range writes {
		if err := w.write(); err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		want := fromDisk(t, s, id)
		for range 3 {
			got, err := s.Conversation(ctx, id)
			if err != nil || got != want {
				t.Fatalf("after %s: Conversation = %+v (%v),\non disk %+v", w.name, got, err, want)
			}
		}
	}
	stop()
	if got := fromDisk(t, s, id); got.Mode != domain.ModeAI || got.LastMessage != "9 to 5" {
		t.Fatalf("the writes did not happen as the test expects: %+v", got)
	}
}

// TestConversationCacheUndoneWrite: a write that records a new value for
// the cache and then fails, or panics, is rolled back to its savepoint, and
// its record with it: neither the chat service nor the next write sees the
// value that was never committed.
func TestConversationCacheUndoneWrite(t *testing.T) {
	t.Parallel()
	f := newConvFixture(t)
	s, ctx, id := f.s, t.Context(), f.conv.ID
	if _, err := s.Conversation(ctx, id); err != nil { // cached
		t.Fatal(err)
	}
	ghost := func(tx *sql.Tx) {
		c, n, err := s.writeConversation(ctx, tx, id)
		if err != nil {
			t.Error(err)
			return
		}
		before := c
		c.Mode, c.LastMessage = domain.ModeHuman, "never committed"
		if err := s.saveConversation(before, c, n+7, true); err != nil {
			t.Error(err)
		}
	}
	errUndo := errors.New("undo")
	if err := s.write(ctx, func(tx *sql.Tx) error { ghost(tx); return errUndo }); !errors.Is(err, errUndo) {
		t.Fatalf("write = %v", err)
	}
	if err := s.write(ctx, func(tx *sql.Tx) error { ghost(tx); panic("boom") }); err == nil {
		t.Fatal("a panicking write succeeded")
	}
	for _, what := range []string{"Conversation", "the next write"} {
		var got domain.Conversation
		var n int
		var err error
		if what == "Conversation" {
			got, err = s.Conversation(ctx, id)
		} else {
			err = s.write(ctx, func(tx *sql.Tx) error {
				got, n, err = s.writeConversation(ctx, tx, id)
				return err
			})
		}
		if err != nil || got != f.conv || fromDisk(t, s, id) != f.conv || n != 0 {
			t.Fatalf("%s = %+v, %d messages (%v), want the conversation as created: %+v", what, got, n, err, f.conv)
		}
	}
}

// TestConversationCacheInBatch: writes to one conversation queued together
// go into one batch, each reading what the one before it left.
func TestConversationCacheInBatch(t *testing.T) {
	t.Parallel()
	f := newConvFixture(t)
	s, ctx, id := f.s, t.Context(), f.conv.ID
	var wg sync.WaitGroup
	const n = 50
	for i := range n {
		wg.Go(func() {
			msg := store.NewMessage{ConversationID: id, Role: domain.RoleVisitor, Text: "q", CreatedAt: time.Now()}
			reply := store.NewMessage{ConversationID: id, Role: domain.RoleAI, Text: "a", CreatedAt: time.Now(),
				RequireMode: domain.ModeAI, Unanswered: i%2 == 0}
			if _, _, err := s.AddExchange(ctx, msg, reply); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	msgs, err := s.LatestMessages(ctx, id, 0, store.MaxMessagePage)
	if err != nil || len(msgs.Messages) != 2*n {
		t.Fatalf("%d messages (%v), want %d", len(msgs.Messages), err, 2*n)
	}
	got, err := s.Conversation(ctx, id)
	if want := fromDisk(t, s, id); err != nil || got != want {
		t.Fatalf("Conversation = %+v (%v), on disk %+v", got, err, want)
	}
}

// TestConversationCacheBound: the cache never holds more than its bound.
func TestConversationCacheBound(t *testing.T) {
	t.Parallel()
	c := newExactCache[domain.Conversation](3)
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		c.put(id, domain.Conversation{ID: id})
	}
	c.put("e", domain.Conversation{ID: "e", LastMessage: "again"}) // replacing takes no room
	if len(c.values) != 3 {
		t.Fatalf("%d values, want 3", len(c.values))
	}
	if v, ok := c.peek("e"); !ok || v.LastMessage != "again" {
		t.Fatalf("e = %+v, %v", v, ok)
	}
}
