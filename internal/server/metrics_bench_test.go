package server

import (
	"testing"
	"time"

	"parley/internal/metrics"
)

// BenchmarkRequestMetrics is what every request costs the metrics: its
// counter by route and status, and its latency histogram by route. It is
// in parallel, as requests are; numbers in docs/benchmarks.md.
func BenchmarkRequestMetrics(b *testing.B) {
	m := NewMetrics(metrics.NewRegistry())
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.request("POST /api/widget/chat", 200, 3*time.Millisecond)
		}
	})
}
