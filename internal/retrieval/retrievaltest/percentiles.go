package retrievaltest

import (
	"slices"
	"testing"
	"time"
)

// ReportPercentiles reports the median and the 99th percentile of took,
// each question's time, in microseconds (p50-µs, p99-µs): a mean hides the
// slow questions a latency budget is about.
func ReportPercentiles(b *testing.B, took []time.Duration) {
	b.Helper()
	if len(took) == 0 {
		return
	}
	slices.Sort(took)
	at := func(p int) float64 { return float64(took[(len(took)-1)*p/100].Nanoseconds()) / 1e3 }
	b.ReportMetric(at(50), "p50-µs")
	b.ReportMetric(at(99), "p99-µs")
}
