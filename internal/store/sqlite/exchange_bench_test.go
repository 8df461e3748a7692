package sqlite

import (
	"runtime"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
	"parley/internal/testsvc"
)

// BenchmarkAddExchange stores a visitor's message and the knowledge base's
// reply, as a chat does, from 40 writers at once, each in a conversation
// of its own: the group commit's batches as under the load benchmark. The
// time per operation is the writer's throughput, fsyncs included.
func BenchmarkAddExchange(b *testing.B) {
	f := newAgentFixture(b)
	s, ctx := f.s, b.Context()
	const perProc = 20 // × GOMAXPROCS (2 here): 40 writers
	// One conversation per writer, made here: b.Fatal belongs to this
	// goroutine, not to RunParallel's.
	convs := make(chan domain.Conversation, perProc*runtime.GOMAXPROCS(0))
	for range cap(convs) {
		convs <- f.newConversation(b)
	}
	b.SetParallelism(perProc)
	b.ResetTimer()
	defer testsvc.CPU(b)()
	b.RunParallel(func(pb *testing.PB) {
		conv := <-convs
		for pb.Next() {
			now := time.Now()
			// The cap is checked, set out of reach as a chat's is.
			visitor := store.NewMessage{ConversationID: conv.ID, Role: domain.RoleVisitor, Text: "What are your opening hours?", CreatedAt: now, MaxMessages: benchCap}
			reply := store.NewMessage{ConversationID: conv.ID, Role: domain.RoleAI, Text: "We are open from 9 to 17, Monday to Friday.",
				CreatedAt: now, RequireMode: domain.ModeAI, MaxMessages: benchCap}
			if _, _, err := s.AddExchange(ctx, visitor, reply); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// benchCap is a cap on messages per conversation that the benchmarks'
// conversations never reach.
const benchCap = 1 << 40

// BenchmarkShortChats is a whole short chat per operation, from 40
// writers at once: a conversation started, then four exchanges, the third
// one a reply that could not answer. Unlike BenchmarkAddExchange, whose
// writers stay in one conversation each, every operation pays what only
// a conversation's first messages and misses write: the outcome and the
// facts it reads (issue 20), and the miss's question.
func BenchmarkShortChats(b *testing.B) {
	f := newAgentFixture(b)
	s, ctx := f.s, b.Context()
	b.SetParallelism(20) // × GOMAXPROCS (2 here): 40 writers
	b.ResetTimer()
	defer testsvc.CPU(b)()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			now := time.Now()
			conv, err := s.CreateConversation(ctx, store.NewConversation{ID: secret.ConversationID(), AgentID: f.ag.ID, AccountID: f.acc.ID,
				VisitorID: secret.VisitorID(), PageURL: "https://example.com/", CreatedAt: now})
			if err != nil {
				b.Error(err)
				return
			}
			for i := range 4 {
				visitor := store.NewMessage{ConversationID: conv.ID, Role: domain.RoleVisitor, Text: "What are your opening hours?", CreatedAt: now, MaxMessages: benchCap}
				reply := store.NewMessage{ConversationID: conv.ID, Role: domain.RoleAI, Text: "We are open from 9 to 17, Monday to Friday.",
					CreatedAt: now, RequireMode: domain.ModeAI, MaxMessages: benchCap, Unanswered: i == 2}
				if _, _, err := s.AddExchange(ctx, visitor, reply); err != nil {
					b.Error(err)
					return
				}
			}
		}
	})
}
