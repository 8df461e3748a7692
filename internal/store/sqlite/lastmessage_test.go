package sqlite

import (
	"strings"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// A chat the agent answers writes its two messages and nothing else: the
// conversation's last message is read from them (convCols). Writes that
// change what the conversation does store (here the count of misses) still
// reach its row. A trigger logs every UPDATE of a conversation.
func TestChatWritesOnlyItsMessages(t *testing.T) {
	t.Parallel()
	f := newConvFixture(t)
	s, ctx := f.s, t.Context()
	execAll(t, s.w,
		`CREATE TABLE conversation_updates (id TEXT)`,
		`CREATE TRIGGER log_conversation_update AFTER UPDATE ON conversations
			BEGIN INSERT INTO conversation_updates VALUES (new.id); END`,
	)
	updates := func() (n int) {
		t.Helper()
		if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM conversation_updates`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	exchange := func(reply string, unanswered bool) domain.Conversation {
		t.Helper()
		now := time.Now()
		c, stored, err := s.AddExchange(ctx,
			store.NewMessage{ConversationID: f.conv.ID, Role: domain.RoleVisitor, Text: "hours?", CreatedAt: now},
			store.NewMessage{ConversationID: f.conv.ID, Role: domain.RoleAI, Text: reply, CreatedAt: now.Add(time.Millisecond),
				RequireMode: domain.ModeAI, Unanswered: unanswered})
		if err != nil || !stored {
			t.Fatalf("AddExchange = %v, %v", stored, err)
		}
		return c
	}

	for i := range 3 {
		exchange("9 to 5", false)
		if n := updates(); n != 0 {
			t.Fatalf("after %d answered chats, the conversation was updated %d times", i+1, n)
		}
	}
	c := exchange("Sorry, I do not know.", true) // a miss: the count changes
	if n := updates(); n != 1 || c.Misses != 1 {
		t.Fatalf("a missed answer: %d updates, misses %d; want 1 and 1", n, c.Misses)
	}

	// What is read back is the newest message, whichever way it is read.
	s.cache.convs.forgetAll()
	got, err := s.Conversation(ctx, f.conv.ID)
	if err != nil || got.LastMessage != "Sorry, I do not know." || !got.LastMessageAt.Equal(c.LastMessageAt) || got.Misses != 1 {
		t.Errorf("Conversation = %+v, %v; want the last message %q at %v", got, err, "Sorry, I do not know.", c.LastMessageAt)
	}
}

// Reading a conversation's last message is one step down its index, not a
// scan of the messages.
func TestLastMessageUsesTheIndex(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	plan := queryPlan(t, s.r, `SELECT `+convCols+` FROM conversations WHERE id = ?`, "x")
	n := 0
	for _, d := range plan {
		if strings.Contains(d, "messages") {
			n++
			if !strings.Contains(d, "USING") || !strings.Contains(d, "messages_conversation") {
				t.Errorf("a last-message subquery reads messages by %q", d)
			}
		}
	}
	if n != 2 {
		t.Errorf("plan %q: want two searches of messages", plan)
	}
}
