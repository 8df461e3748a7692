package jobs

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
	"parley/internal/store/sqlite"
	"parley/internal/testsvc"
)

// BenchmarkChatBesideQueue measures what River's own connection on the
// SQLite file costs the chats: a chat's writes (a visitor's message and
// the reply, 40 writers at once as under load, as the store's
// BenchmarkAddExchange) with no queue, with the queue started and idle
// (polling), and with the queue busy (a stream of syncs that do nothing,
// so River inserts, fetches and completes jobs all the time: far more
// writes than real syncs make). p99-µs is one chat's writes' 99th
// percentile latency, where waits for River's hold on the write lock
// would show.
func BenchmarkChatBesideQueue(b *testing.B) {
	for _, mode := range []string{"none", "idle", "busy"} {
		b.Run("queue="+mode, func(b *testing.B) { benchChat(b, mode) })
	}
}

func benchChat(b *testing.B, mode string) {
	ctx := b.Context()
	path := filepath.Join(b.TempDir(), "parley.db")
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	var jobsDone atomic.Int64
	if mode != "none" {
		q, err := Open(ctx, Options{DB: path, Logger: testLogger(), SyncSource: func(context.Context, string) error {
			jobsDone.Add(1)
			return nil
		}})
		if err != nil {
			b.Fatal(err)
		}
		if err := q.Start(ctx); err != nil {
			b.Fatal(err)
		}
		defer q.Stop(context.Background())
		if mode == "busy" {
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() {
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					q.EnqueueSync(ctx, fmt.Sprintf("src_%d", i))
					time.Sleep(time.Millisecond) // an enqueue stream, not a tight loop on the lock
				}
			})
			defer wg.Wait()
			defer close(stop)
		}
	}

	acc, err := st.CreateAccount(ctx, store.NewAccount{Email: "o@example.com", Name: "O", PasswordHash: "h", Limits: domain.Limits{MonthlyConversations: 1 << 30}})
	if err != nil {
		b.Fatal(err)
	}
	ag, err := st.CreateAgent(ctx, store.NewAgent{AccountID: acc.ID, ChatbotName: "Bot", Key: secret.WidgetKey()})
	if err != nil {
		b.Fatal(err)
	}
	const perProc = 20
	convs := make(chan domain.Conversation, perProc*runtime.GOMAXPROCS(0))
	for range cap(convs) {
		conv, err := st.CreateConversation(ctx, store.NewConversation{ID: secret.ConversationID(), AgentID: ag.ID, AccountID: acc.ID,
			VisitorID: secret.VisitorID(), CreatedAt: time.Now()})
		if err != nil {
			b.Fatal(err)
		}
		convs <- conv
	}
	var mu sync.Mutex
	var lat []time.Duration
	b.SetParallelism(perProc)
	b.ResetTimer()
	jobs0, t0 := jobsDone.Load(), time.Now()
	defer testsvc.CPU(b)()
	b.RunParallel(func(pb *testing.PB) {
		conv := <-convs
		var mine []time.Duration
		for pb.Next() {
			now := time.Now()
			visitor := store.NewMessage{ConversationID: conv.ID, Role: domain.RoleVisitor, Text: "What are your opening hours?", CreatedAt: now, MaxMessages: 1 << 40}
			reply := store.NewMessage{ConversationID: conv.ID, Role: domain.RoleAI, Text: "We are open from 9 to 17, Monday to Friday.",
				CreatedAt: now, RequireMode: domain.ModeAI, MaxMessages: 1 << 40}
			if _, _, err := st.AddExchange(ctx, visitor, reply); err != nil {
				b.Error(err)
				return
			}
			mine = append(mine, time.Since(now))
		}
		mu.Lock()
		lat = append(lat, mine...)
		mu.Unlock()
	})
	b.StopTimer()
	if len(lat) > 0 {
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	}
	if mode == "busy" {
		b.ReportMetric(float64(jobsDone.Load()-jobs0)/time.Since(t0).Seconds(), "jobs/s")
	}
}
