// Package loadtest drives a running Parley the way visitors do, from many
// loopback addresses, and measures it: requests per second and latency
// percentiles per endpoint, and errors by status. It only ever talks to
// loopback addresses, and every run is bounded in requests and time.
package loadtest

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"
	"time"
)

// Stats collects latencies per endpoint and statuses. Safe for concurrent
// use; Record takes one short lock, which is small next to an HTTP round
// trip on loopback.
type Stats struct {
	mu        sync.Mutex
	latencies map[string][]time.Duration
	statuses  map[string]map[int]int // endpoint → status → count; 0 is a transport error
	start     time.Time
	end       time.Time
}

func NewStats() *Stats {
	return &Stats{latencies: map[string][]time.Duration{}, statuses: map[string]map[int]int{}, start: time.Now()}
}

func (s *Stats) Record(endpoint string, status int, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latencies[endpoint] = append(s.latencies[endpoint], d)
	if s.statuses[endpoint] == nil {
		s.statuses[endpoint] = map[int]int{}
	}
	s.statuses[endpoint][status]++
}

// Stop marks the end of the measured interval.
func (s *Stats) Stop() {
	s.mu.Lock()
	s.end = time.Now()
	s.mu.Unlock()
}

// Summary is one endpoint's numbers.
type Summary struct {
	Endpoint           string
	Requests           int
	PerSecond          float64
	P50, P90, P99, Max time.Duration
	Statuses           map[int]int
}

func (s *Stats) Summaries() []Summary {
	s.mu.Lock()
	defer s.mu.Unlock()
	end := s.end
	if end.IsZero() {
		end = time.Now()
	}
	secs := end.Sub(s.start).Seconds()
	var out []Summary
	for ep, ls := range s.latencies {
		sorted := slices.Clone(ls)
		slices.Sort(sorted)
		out = append(out, Summary{
			Endpoint: ep, Requests: len(sorted), PerSecond: float64(len(sorted)) / secs,
			P50: pct(sorted, 50), P90: pct(sorted, 90), P99: pct(sorted, 99), Max: sorted[len(sorted)-1],
			Statuses: s.statuses[ep],
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Endpoint < out[j].Endpoint })
	return out
}

// pct is the nearest-rank percentile of sorted durations.
func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	return sorted[max(i-1, 0)]
}

// Print writes a table of the summaries.
func Print(w io.Writer, sums []Summary) {
	fmt.Fprintf(w, "%-28s %9s %10s %9s %9s %9s %9s  %s\n", "endpoint", "requests", "req/s", "p50", "p90", "p99", "max", "statuses")
	for _, s := range sums {
		codes := make([]int, 0, len(s.Statuses))
		for c := range s.Statuses {
			codes = append(codes, c)
		}
		slices.Sort(codes)
		st := ""
		for _, c := range codes {
			name := fmt.Sprint(c)
			if c == 0 {
				name = "neterr"
			}
			st += fmt.Sprintf("%s:%d ", name, s.Statuses[c])
		}
		fmt.Fprintf(w, "%-28s %9d %10.0f %9s %9s %9s %9s  %s\n", s.Endpoint, s.Requests, s.PerSecond,
			round(s.P50), round(s.P90), round(s.P99), round(s.Max), st)
	}
}

func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// shard is one visitor's own numbers, kept without a lock and merged into
// the run's Stats when it ends.
type shard struct {
	latencies map[string][]time.Duration
	statuses  map[string]map[int]int
}

func newShard() *shard {
	return &shard{latencies: map[string][]time.Duration{}, statuses: map[string]map[int]int{}}
}

func (s *shard) record(endpoint string, status int, d time.Duration) {
	s.latencies[endpoint] = append(s.latencies[endpoint], d)
	if s.statuses[endpoint] == nil {
		s.statuses[endpoint] = map[int]int{}
	}
	s.statuses[endpoint][status]++
}

func (s *Stats) merge(sh *shard) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ep, ls := range sh.latencies {
		s.latencies[ep] = append(s.latencies[ep], ls...)
	}
	for ep, m := range sh.statuses {
		if s.statuses[ep] == nil {
			s.statuses[ep] = map[int]int{}
		}
		for code, n := range m {
			s.statuses[ep][code] += n
		}
	}
}
