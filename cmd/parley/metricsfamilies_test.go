package main

import (
	"bytes"
	"io"
	"net/http"
	"path/filepath"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestMetricsFamilies scrapes the real program's /metrics (from loopback,
// as a scraper on the same host does) and checks the families a fresh
// instance shows before any event, with their types: the listener's, the
// init limits' and surges', and the service's that are there from the
// start. The service's other families, which appear on their first count,
// are checked in internal/server (TestMetricsFamilies).
func TestMetricsFamilies(t *testing.T) {
	t.Parallel()
	a := start(t, filepath.Join(t.TempDir(), "p.db"), map[string]string{"PARLEY_DEMO": "false"})
	if res, err := http.Get(a.base + "/healthz"); err == nil {
		res.Body.Close()
	}
	res, err := http.Get(a.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("/metrics from loopback: %d %s", res.StatusCode, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	got, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("/metrics does not parse: %v\n%s", err, body)
	}
	counter, gauge, histogram := dto.MetricType_COUNTER, dto.MetricType_GAUGE, dto.MetricType_HISTOGRAM
	for name, typ := range map[string]dto.MetricType{
		"parley_http_requests_total":           counter,
		"parley_http_request_duration_seconds": histogram,
		"parley_ratelimit_refused_total":       counter,
		"parley_longpolls_waiting":             gauge,
		"parley_ratelimit_tracked_addresses":   gauge,
		"parley_ratelimit_overflowed_requests": gauge,
		"parley_connections_open":              gauge,
		"parley_connections_idle":              gauge,
		"parley_connections_budget":            gauge,
		"parley_connections_cut":               gauge,
		"parley_connections_refused_per_ip":    gauge,
		"parley_connections_refused_budget":    gauge,
		"parley_init_limit_overflowed":         gauge,
		"parley_init_surges_total":             counter,
		"parley_init_surging_accounts":         gauge,
		"go_goroutines":                        gauge,
		"process_open_fds":                     gauge,
	} {
		if f := got[name]; f == nil || f.GetType() != typ || f.GetHelp() == "" {
			t.Errorf("%s: %v, want a %v with its help", name, f, typ)
		}
	}
	if t.Failed() {
		t.Logf("%s", body)
	}
}
