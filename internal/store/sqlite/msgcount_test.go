package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"parley/internal/domain"
	"parley/internal/store"
)

// The count a write checks the cap against is the conversation's real
// number of messages whichever way the write finds the conversation: as a
// write left it in the cache, cached uncounted by a reader, forgotten, or
// after a restart with messages stored earlier (a database from before the
// cap, whose conversations may hold more than it).
func TestMessageCountEveryWay(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "parley.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	f := convFixture{s: s}
	f.acc, f.ag = newAgentFixtureOn(t, s)
	c := f.newConversation(t)
	ctx := t.Context()
	add := func(max int) error {
		_, _, err := s.AddMessage(ctx, store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "m", MaxMessages: max})
		return err
	}
	n := 0
	for range 5 { // no cap yet
		if err := add(0); err != nil {
			t.Fatal(err)
		}
		n++
	}
	// step leaves the cache in some state (way) before each of two capped
	// writes: one that fits, then one that finds the conversation full.
	step := func(what string, way func()) {
		t.Helper()
		way()
		if err := add(n + 1); err != nil {
			t.Fatalf("%s: message %d under a cap of %d: %v", what, n+1, n+1, err)
		}
		n++
		way()
		if err := add(n); !errors.Is(err, domain.ErrConversationFull) {
			t.Fatalf("%s: message %d under a cap of %d: %v, want ErrConversationFull", what, n+1, n, err)
		}
	}
	step("cached by the writes", func() {})
	step("forgotten", func() { s.cache.convs.forgetAll() })
	step("cached by a reader", func() {
		s.cache.convs.forgetAll()
		if _, err := s.Conversation(ctx, c.ID); err != nil {
			t.Fatal(err)
		}
		if got, ok := s.cache.convs.peek(c.ID); !ok || got.messages != notCounted {
			t.Fatalf("after a read the cache holds %+v, %v; want the conversation uncounted", got, ok)
		}
	})
	s.Close()
	s, err = Open(t.Context(), path) // a restart: nothing cached
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	step("after a restart", func() {})
}

// A refused write keeps the count it made, so a full conversation that
// keeps receiving chats is counted once, not once per chat.
func TestRefusedWriteKeepsTheCount(t *testing.T) {
	t.Parallel()
	f := newConvFixture(t)
	s, ctx, id := f.s, t.Context(), f.conv.ID
	for range 3 {
		if _, _, err := s.AddMessage(ctx, store.NewMessage{ConversationID: id, Role: domain.RoleVisitor, Text: "m"}); err != nil {
			t.Fatal(err)
		}
	}
	s.cache.convs.forgetAll()
	if _, err := s.Conversation(ctx, id); err != nil { // cached uncounted
		t.Fatal(err)
	}
	_, _, err := s.AddMessage(ctx, store.NewMessage{ConversationID: id, Role: domain.RoleVisitor, Text: "m", MaxMessages: 3})
	if !errors.Is(err, domain.ErrConversationFull) {
		t.Fatalf("AddMessage = %v, want ErrConversationFull", err)
	}
	if got, ok := s.cache.convs.peek(id); !ok || got.messages != 3 || got.conv.ID != id {
		t.Errorf("after the refusal the cache holds %+v, %v; want the conversation with 3 messages", got, ok)
	}
}

// A page of a transcript is read down the messages_conversation index,
// whatever its cursor: never a scan of the messages, nor a sort.
func TestLatestMessagesUsesTheIndex(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	plan := strings.Join(queryPlan(t, s.r, `SELECT `+messageCols+` FROM messages
		WHERE conversation_id = ? AND seq < ?
		ORDER BY seq DESC LIMIT `+limitArg, "x", 1, 10), "; ")
	if !strings.Contains(plan, "messages_conversation") || strings.Contains(plan, "TEMP B-TREE") {
		t.Errorf("plan %q: want a search of messages_conversation and no sort", plan)
	}
}

// newAgentFixtureOn is newAgentFixture on a given store.
func newAgentFixtureOn(t testing.TB, s *Store) (domain.Account, domain.Agent) {
	t.Helper()
	acc, err := s.CreateAccount(context.Background(), store.NewAccount{Email: "o@example.com", Name: "O", PasswordHash: "h", Limits: domain.Limits{MonthlyConversations: 1 << 30}})
	if err != nil {
		t.Fatal(err)
	}
	ag, err := s.CreateAgent(context.Background(), store.NewAgent{AccountID: acc.ID, ChatbotName: "Bot"})
	if err != nil {
		t.Fatal(err)
	}
	return acc, ag
}
