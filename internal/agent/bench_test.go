package agent

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/retrieval/retrievaltest"
)

// Messages while a rebuild runs, at the size of the attack of issue 14,
// item 7 (100 documents of 200,000 characters, in a real SQLite store),
// and at the default bound (5):
// each iteration edits one document, as the API does, and answers
// messages until the rebuild it started is done. They are answered from
// the index there is, so their latency is an answer's (chat-µs, the mean,
// and chat-p99-µs; idle-chat-µs without a rebuild), not the rebuild's
// (rebuild-ms). Before, the first
// message after an edit waited for a full build of the 20 MB
// (BenchmarkRebuild100Documents, before=full build). Run with -benchtime
// 3x.
func BenchmarkRespondWhileRebuilding(b *testing.B) {
	b.Run("100 documents", func(b *testing.B) { respondWhileRebuilding(b, 100) })
	b.Run("5 documents=the bound", func(b *testing.B) { respondWhileRebuilding(b, 5) })
}

func respondWhileRebuilding(b *testing.B, documents int) {
	st := newGatedStore(b)
	docs := retrievaltest.Documents(documents, 200_000, "en", 1)
	a := seedAgent(b, st, docs...)
	built := make(chan struct{}, 1)
	kb := NewKB(st, KBOptions{OnBuild: func(string, int, time.Duration, error) { built <- struct{}{} }})
	b.Cleanup(kb.Stop)
	queries := retrievaltest.Queries(docs, 256, 1)
	ctx := context.Background()
	ask := func(i int) time.Duration {
		q := queries[i%len(queries)]
		start := time.Now()
		if _, err := kb.Respond(ctx, Request{Agent: a, Text: q.Text, Lang: q.Lang}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	ask(0) // the first build
	<-built
	stored, err := st.Store.Knowledge(ctx, a.ID)
	if err != nil {
		b.Fatal(err)
	}
	e := stored[len(stored)/2]
	var idle time.Duration
	for i := range 500 {
		idle += ask(i)
	}
	var chats []time.Duration
	var rebuild time.Duration
	n := 0
	for b.Loop() {
		n++
		e.Text = docs[len(docs)/2].Text + fmt.Sprintf("\n\nEdited paragraph number %d.", n)
		if _, err := st.UpdateKnowledge(ctx, a.AccountID, a.ID, e, domain.KnowledgeLimits{}); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		kb.Invalidate(a.ID)
	answering:
		for i := 0; ; i++ {
			select {
			case <-built:
				break answering
			default:
				chats = append(chats, ask(i))
			}
		}
		rebuild += time.Since(start)
	}
	var sum time.Duration
	for _, c := range chats {
		sum += c
	}
	b.ReportMetric(float64(idle.Microseconds())/500, "idle-chat-µs")
	b.ReportMetric(float64(sum.Microseconds())/float64(max(len(chats), 1)), "chat-µs")
	slices.Sort(chats)
	if len(chats) > 0 {
		b.ReportMetric(float64(chats[len(chats)*99/100].Microseconds()), "chat-p99-µs")
	}
	b.ReportMetric(float64(len(chats))/float64(b.N), "chats/rebuild")
	b.ReportMetric(float64(rebuild.Milliseconds())/float64(b.N), "rebuild-ms")
}
