package metrics

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape reads the registry through its handler, as Prometheus does, and
// parses the answer with Prometheus's own parser.
func scrape(t *testing.T, r *Registry) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("scrape: %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("the exposition does not parse: %v\n%s", err, rec.Body)
	}
	return fams
}

func TestDeclaredSeries(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	req := r.Counter("t_requests_total", "Requests by route and status.", "route", "status")
	req.WithLabelValues("/widget", "200").Add(3)
	req.WithLabelValues("/widget", "429").Inc()
	r.Counter("t_idle_total", "Label-less: scraped as 0 before its first count.")
	r.Counter("t_unused_total", "Labelled and never counted: not scraped.", "x")
	lat := r.Histogram("t_duration_seconds", "Latency.", nil, "route")
	lat.WithLabelValues("/widget").Observe(0.0005) // on a bound: counted in that bucket
	lat.WithLabelValues("/widget").Observe(3)
	r.GaugeFunc("t_tracked", "Read at scrape time.", func() float64 { return 42 })

	fams := scrape(t, r)
	for name, typ := range map[string]dto.MetricType{
		"t_requests_total": dto.MetricType_COUNTER, "t_idle_total": dto.MetricType_COUNTER,
		"t_duration_seconds": dto.MetricType_HISTOGRAM, "t_tracked": dto.MetricType_GAUGE,
		// The client's own collectors.
		"go_goroutines": dto.MetricType_GAUGE, "process_resident_memory_bytes": dto.MetricType_GAUGE,
	} {
		if f := fams[name]; f == nil || f.GetType() != typ {
			t.Errorf("%s: %v, want a %v", name, f, typ)
		}
	}
	if _, ok := fams["t_unused_total"]; ok {
		t.Error("a labelled family that never counted is scraped")
	}
	if t.Failed() {
		return
	}
	if got := fams["t_idle_total"].Metric[0].GetCounter().GetValue(); got != 0 {
		t.Errorf("t_idle_total = %v", got)
	}
	if got := fams["t_tracked"].Metric[0].GetGauge().GetValue(); got != 42 {
		t.Errorf("t_tracked = %v", got)
	}
	counts := map[string]float64{}
	for _, m := range fams["t_requests_total"].Metric {
		counts[m.Label[0].GetValue()+" "+m.Label[1].GetValue()] = m.GetCounter().GetValue()
	}
	if counts["/widget 200"] != 3 || counts["/widget 429"] != 1 || len(counts) != 2 {
		t.Errorf("t_requests_total = %v", counts)
	}
	h := fams["t_duration_seconds"].Metric[0].GetHistogram()
	cumulative := map[float64]uint64{}
	for _, b := range h.Bucket {
		cumulative[b.GetUpperBound()] = b.GetCumulativeCount()
	}
	if h.GetSampleCount() != 2 || h.GetSampleSum() != 3.0005 || len(cumulative) != len(DefBuckets)+1 || // and +Inf
		cumulative[0.0005] != 1 || cumulative[2.5] != 1 || cumulative[5] != 2 {
		t.Errorf("t_duration_seconds = %v", h)
	}
}

func TestMethods(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	r.Counter("t_total", "A counter.")
	for _, tt := range []struct {
		method string
		code   int
		series bool
	}{
		{http.MethodGet, http.StatusOK, true},
		{http.MethodHead, http.StatusOK, false}, // net/http sends no body
		{http.MethodPost, http.StatusMethodNotAllowed, false},
	} {
		srv := httptest.NewServer(r)
		req, _ := http.NewRequest(tt.method, srv.URL+"/metrics", nil)
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		srv.Close()
		if res.StatusCode != tt.code || strings.Contains(string(body), "t_total 0") != tt.series {
			t.Errorf("%s: %d %q", tt.method, res.StatusCode, body)
		}
	}
}

// Each registry is its own: tests run many servers in one process, each
// declaring the same names, while a name declared twice in one registry
// is a programming error.
func TestRegistriesAreSeparate(t *testing.T) {
	t.Parallel()
	a, b := NewRegistry(), NewRegistry()
	a.Counter("t_total", "A counter.").WithLabelValues().Inc()
	b.Counter("t_total", "A counter.")
	var out strings.Builder
	if _, err := b.WriteTo(&out); err != nil || !strings.Contains(out.String(), "\nt_total 0\n") {
		t.Fatalf("the second registry: %v\n%s", err, out.String())
	}
	defer func() {
		if recover() == nil {
			t.Fatal("declaring a name twice in one registry did not panic")
		}
	}()
	a.GaugeFunc("t_total", "Again.", func() float64 { return 0 })
}
