package metrics

import (
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

func TestExposition(t *testing.T) {
	r := NewRegistry()
	req := r.Counter("http_requests_total", "Requests by route and code.", "route", "code")
	req.With("/widget", "200").Add(3)
	req.With("/widget", "429").Inc()
	req.With("/admin", "200").Inc()
	req.With(`a"b\c`+"\nd", "500").Inc()
	r.Counter("idle_total", "Label-less counter shows zero.")
	r.Counter("unused_total", "Labelled, never used: not shown.", "x")
	lat := r.Histogram("http_request_duration_seconds", "Latency.\nSecond line with \\ and \"quotes\".",
		[]float64{0.1, 1}, "route")
	lat.With("/widget").Observe(0.05)
	lat.With("/widget").Observe(0.1) // on a bound: counts in that bucket
	lat.With("/widget").Observe(3)
	r.GaugeFunc("tracked_ips", "IPs tracked.", func() float64 { return 42 })
	g := r.Gauge("temperature", "A gauge.", "room")
	g.With("b").Set(-1.5)
	g.With("a").Add(2)
	g.With("a").Add(0.25)
	r.Gauge("inf_gauge", "Infinity.").With().Set(math.Inf(1))

	want := `# HELP http_request_duration_seconds Latency.\nSecond line with \\ and "quotes".
# TYPE http_request_duration_seconds histogram
http_request_duration_seconds_bucket{route="/widget",le="0.1"} 2
http_request_duration_seconds_bucket{route="/widget",le="1"} 2
http_request_duration_seconds_bucket{route="/widget",le="+Inf"} 3
http_request_duration_seconds_sum{route="/widget"} 3.15
http_request_duration_seconds_count{route="/widget"} 3
# HELP http_requests_total Requests by route and code.
# TYPE http_requests_total counter
http_requests_total{route="/admin",code="200"} 1
http_requests_total{route="/widget",code="200"} 3
http_requests_total{route="/widget",code="429"} 1
http_requests_total{route="a\"b\\c\nd",code="500"} 1
# HELP idle_total Label-less counter shows zero.
# TYPE idle_total counter
idle_total 0
# HELP inf_gauge Infinity.
# TYPE inf_gauge gauge
inf_gauge +Inf
# HELP temperature A gauge.
# TYPE temperature gauge
temperature{room="a"} 2.25
temperature{room="b"} -1.5
# HELP tracked_ips IPs tracked.
# TYPE tracked_ips gauge
tracked_ips 42
`
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if ct := rec.Header().Get("Content-Type"); ct != ContentType {
		t.Errorf("Content-Type = %q", ct)
	}
	if got := rec.Body.String(); got != want {
		t.Fatalf("exposition mismatch\n--- got\n%s\n--- want\n%s", got, want)
	}
}

func TestServeHTTPMethods(t *testing.T) {
	r := NewRegistry()
	r.Counter("c_total", "c")
	tests := []struct {
		method   string
		code     int
		wantBody bool
	}{
		{http.MethodGet, http.StatusOK, true},
		{http.MethodHead, http.StatusOK, false},
		{http.MethodPost, http.StatusMethodNotAllowed, false},
	}
	for _, tt := range tests {
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, httptest.NewRequest(tt.method, "/metrics", nil))
		hasSeries := strings.Contains(rec.Body.String(), "c_total 0")
		if rec.Code != tt.code || hasSeries != tt.wantBody {
			t.Errorf("%s: code %d, series shown %v", tt.method, rec.Code, hasSeries)
		}
	}
}

func TestRegistrationPanics(t *testing.T) {
	tests := []struct {
		name string
		fn   func(r *Registry)
	}{
		{"duplicate name", func(r *Registry) { r.Counter("x", ""); r.Gauge("x", "") }},
		{"clash with histogram suffix", func(r *Registry) { r.Counter("h_count", ""); r.Histogram("h", "", nil) }},
		{"duplicate gauge func", func(r *Registry) { r.GaugeFunc("g", "", nil); r.GaugeFunc("g", "", nil) }},
		{"bad metric name", func(r *Registry) { r.Counter("1abc", "") }},
		{"bad label name", func(r *Registry) { r.Counter("x", "", "a-b") }},
		{"reserved label name", func(r *Registry) { r.Counter("x", "", "__name") }},
		{"repeated label", func(r *Registry) { r.Counter("x", "", "a", "a") }},
		{"le on histogram", func(r *Registry) { r.Histogram("h", "", nil, "le") }},
		{"unsorted buckets", func(r *Registry) { r.Histogram("h", "", []float64{1, 0.5}) }},
		{"NaN bucket", func(r *Registry) { r.Histogram("h", "", []float64{math.NaN()}) }},
		{"wrong label count", func(r *Registry) { r.Counter("x", "", "a").With("1", "2") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			tt.fn(NewRegistry())
		})
	}
}

func TestTrailingInfBucketAccepted(t *testing.T) {
	r := NewRegistry()
	r.Histogram("h", "", []float64{1, math.Inf(1)}).With().Observe(2)
	var b strings.Builder
	if _, err := r.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(b.String(), `le="+Inf"`); got != 1 {
		t.Fatalf("%d +Inf buckets, want 1:\n%s", got, b.String())
	}
}

func TestConcurrentUpdates(t *testing.T) {
	const goroutines, perG = 32, 1000
	r := NewRegistry()
	c := r.Counter("c_total", "", "k")
	h := r.Histogram("h", "", DefBuckets, "k")
	g := r.Gauge("g", "")
	keys := []string{"a", "b", "c"}
	var wg sync.WaitGroup
	for i := range goroutines {
		wg.Go(func() {
			k := keys[i%len(keys)]
			for range perG {
				c.With(k).Inc()
				h.With(k).Observe(0.5)
				g.With().Add(1)
			}
		})
	}
	// Scrape while updating, so -race sees readers and writers together.
	wg.Go(func() {
		for range 20 {
			_, _ = r.WriteTo(discard{})
		}
	})
	wg.Wait()

	var total, observed uint64
	var sum float64
	for _, k := range keys {
		total += c.With(k).Value()
		hist := h.With(k)
		for i := range hist.counts {
			observed += hist.counts[i].Load()
		}
		sum += math.Float64frombits(hist.sum.Load())
	}
	const want = goroutines * perG
	if total != want || observed != want || sum != want*0.5 || g.With().Value() != want {
		t.Fatalf("counter %d, observations %d, sum %v, gauge %v; want %d each (sum %v)",
			total, observed, sum, g.With().Value(), want, want*0.5)
	}
}

func TestWithDoesNotAllocate(t *testing.T) {
	r := NewRegistry()
	c := r.Counter("c_total", "", "route", "code")
	h := r.Histogram("h", "", nil, "route")
	c.With("/widget", "200")
	h.With("/widget")
	if a := testing.AllocsPerRun(100, func() {
		c.With("/widget", "200").Inc()
		h.With("/widget").Observe(0.01)
	}); a != 0 {
		t.Fatalf("%v allocs per update of an existing series, want 0", a)
	}
}

func TestSeriesKeyUnambiguous(t *testing.T) {
	a := string(seriesKey(nil, []string{"ab", "c"}))
	b := string(seriesKey(nil, []string{"a", "bc"}))
	if a == b {
		t.Fatal("different label tuples share a key")
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
