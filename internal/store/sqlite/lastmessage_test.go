package sqlite

import (
	"strings"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// A chat the agent answers writes its two messages and the conversation's
// latest activity, and nothing else of the conversation: its last message
// is read from the messages (convCols), and the one UPDATE sets only
// last_activity_at, so it touches only the indexes keyed on it. Writes
// that change what else the conversation stores (here the count of misses)
// still reach its row, and so does the first chat, which sets what the
// outcome reads (the visitor asked, the agent answered) and the outcome,
// none of them indexed. Triggers log every UPDATE of a conversation, those
// that set any column but last_activity_at and the outcome's, and those
// that set the outcome's.
func TestChatWritesOnlyItsMessages(t *testing.T) {
	t.Parallel()
	f := newConvFixture(t)
	s, ctx := f.s, t.Context()
	execAll(t, s.w,
		`CREATE TABLE conversation_updates (id TEXT, what TEXT)`,
		`CREATE TRIGGER log_conversation_update AFTER UPDATE ON conversations
			BEGIN INSERT INTO conversation_updates VALUES (new.id, 'any'); END`,
		`CREATE TRIGGER log_conversation_state AFTER UPDATE OF agent_id, account_id, visitor_id, page_url, mode,
			created_at, waiting, waiting_since, misses, assignee_id, assignee_name, user_id, visitor_name,
			visitor_email, verified, status ON conversations
			BEGIN INSERT INTO conversation_updates VALUES (new.id, 'state'); END`,
		`CREATE TRIGGER log_conversation_outcome AFTER UPDATE OF asked, answered, handed_at, first_operator_at,
			helpful, not_helpful, outcome ON conversations
			BEGIN INSERT INTO conversation_updates VALUES (new.id, 'outcome'); END`,
	)
	updates := func(what string) (n int) {
		t.Helper()
		if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM conversation_updates WHERE what = ?`, what).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	start := time.Now()
	exchange := func(reply string, unanswered bool) domain.Conversation {
		t.Helper()
		start = start.Add(time.Second) // each a second later: the activity moves
		now := start
		c, replySeq, err := s.AddExchange(ctx,
			store.NewMessage{ConversationID: f.conv.ID, Role: domain.RoleVisitor, Text: "hours?", CreatedAt: now},
			store.NewMessage{ConversationID: f.conv.ID, Role: domain.RoleAI, Text: reply, CreatedAt: now.Add(time.Millisecond),
				RequireMode: domain.ModeAI, Unanswered: unanswered})
		if err != nil || replySeq == 0 {
			t.Fatalf("AddExchange = reply seq %d, %v", replySeq, err)
		}
		return c
	}

	for i := range 3 {
		c := exchange("9 to 5", false)
		if n, state, outcome := updates("any"), updates("state"), updates("outcome"); n != i+1 || state != 0 || outcome != 1 {
			t.Fatalf("after %d answered chats, the conversation was updated %d times (%d beyond its activity, %d its outcome); want %d, 0, 1",
				i+1, n, state, outcome, i+1)
		}
		if !c.LastActivityAt.Equal(c.LastMessageAt) {
			t.Fatalf("activity %v, want the reply's time %v", c.LastActivityAt, c.LastMessageAt)
		}
		if c.Outcome() != domain.OutcomeResolved {
			t.Fatalf("after %d answered chats: outcome %s", i+1, c.Outcome())
		}
	}
	c := exchange("Sorry, I do not know.", true) // a miss: the count changes, and the outcome
	if n, state, outcome := updates("any"), updates("state"), updates("outcome"); n != 4 || state != 1 || outcome != 2 || c.Misses != 1 {
		t.Fatalf("a missed answer: %d updates (%d beyond the activity, %d the outcome), misses %d; want 4, 1, 2 and 1", n, state, outcome, c.Misses)
	}
	// A second miss in a row: the count changes, the outcome does not
	// (unanswered already), and its column, indexed for the reports, is
	// not written.
	c = exchange("Sorry, I do not know.", true)
	if n, state, outcome := updates("any"), updates("state"), updates("outcome"); n != 5 || state != 2 || outcome != 2 || c.Misses != 2 {
		t.Fatalf("a second miss: %d updates (%d beyond the activity, %d the outcome), misses %d; want 5, 2, 2 and 2", n, state, outcome, c.Misses)
	}

	// What is read back is the newest message, whichever way it is read.
	s.cache.convs.forgetAll()
	got, err := s.Conversation(ctx, f.conv.ID)
	if err != nil || got.LastMessage != "Sorry, I do not know." || !got.LastMessageAt.Equal(c.LastMessageAt) || got.Misses != 2 ||
		!got.LastActivityAt.Equal(c.LastMessageAt) || got.Outcome() != domain.OutcomeUnanswered || !got.Asked || !got.Answered {
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
