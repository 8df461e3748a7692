package sqlite

import (
	"testing"

	"parley/internal/secret"
)

// BenchmarkAgentByKey resolves a widget key as the widget's every request
// does (init, chat, poll), from many goroutines at once: "hit" is an
// active key, answered from the key cache; "miss" a made-up key, read from
// the database each time (misses are never cached).
func BenchmarkAgentByKey(b *testing.B) {
	f := newAgentFixture(b)
	s, ctx := f.s, b.Context()
	key := secret.WidgetKey()
	if _, err := s.CreateKey(ctx, f.acc.ID, f.ag.ID, key); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name, key string
		ok        bool
	}{{"hit", key, true}, {"miss", secret.WidgetKey(), false}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetParallelism(20)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := s.AgentByKey(ctx, c.key); (err == nil) != c.ok {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
