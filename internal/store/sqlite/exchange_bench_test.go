package sqlite

import (
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

// BenchmarkAddExchange stores a visitor's message and the knowledge base's
// reply, as a chat does, from 40 writers at once, each in a conversation
// of its own: the group commit's batches as under the load benchmark. The
// time per operation is the writer's throughput, fsyncs included.
func BenchmarkAddExchange(b *testing.B) {
	s := openTemp(b)
	ctx := b.Context()
	acc, _ := s.CreateAccount(ctx, store.NewAccount{Email: "b@example.com", Limits: domain.Limits{MonthlyConversations: 1 << 30}})
	ag, err := s.CreateAgent(ctx, store.NewAgent{AccountID: acc.ID, ChatbotName: "B", Key: secret.WidgetKey()})
	if err != nil {
		b.Fatal(err)
	}
	b.SetParallelism(20) // × GOMAXPROCS (2 here): 40 writers
	b.RunParallel(func(pb *testing.PB) {
		conv, err := s.CreateConversation(ctx, store.NewConversation{
			ID: secret.ConversationID(), AgentID: ag.ID, AccountID: acc.ID, VisitorID: secret.VisitorID(), CreatedAt: time.Now(),
		})
		if err != nil {
			b.Error(err)
			return
		}
		for pb.Next() {
			now := time.Now()
			visitor := store.NewMessage{ConversationID: conv.ID, Role: domain.RoleVisitor, Text: "What are your opening hours?", CreatedAt: now}
			reply := store.NewMessage{ConversationID: conv.ID, Role: domain.RoleAI, Text: "We are open from 9 to 17, Monday to Friday.",
				CreatedAt: now, RequireMode: domain.ModeAI}
			if _, _, err := s.AddExchange(ctx, visitor, reply); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
