package server

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"parley/internal/agent"
	"parley/internal/domain"
)

// family is one series family as an operator's dashboards know it:
// docs/operations.md lists them all.
type family struct {
	typ    dto.MetricType
	labels []string
	help   string
}

// The families the service declares (the listener's and the background
// checks' are in cmd/parley), with the names, types, labels and help
// texts they had before client_golang counted them; dashboards and alerts
// depend on every one.
var serviceFamilies = map[string]family{
	"parley_http_requests_total":           {dto.MetricType_COUNTER, []string{"route", "status"}, "HTTP requests by route and status."},
	"parley_http_request_duration_seconds": {dto.MetricType_HISTOGRAM, []string{"route"}, "HTTP request latency by route."},
	"parley_ai_duration_seconds":           {dto.MetricType_HISTOGRAM, []string{"outcome"}, "Time the AI agent took to answer, by outcome."},
	"parley_ai_errors_total":               {dto.MetricType_COUNTER, []string{"kind"}, "AI agent failures by kind (timeout, unavailable)."},
	"parley_ratelimit_refused_total":       {dto.MetricType_COUNTER, nil, "Widget API requests refused by the per-IP rate limit."},
	"parley_quota_refused_total":           {dto.MetricType_COUNTER, []string{"reason"}, "New conversations refused because the account is blocked, by reason."},
	"parley_longpolls_waiting":             {dto.MetricType_GAUGE, nil, "Long polls waiting for an operator message or a mode change."},
	"parley_ratelimit_tracked_addresses":   {dto.MetricType_GAUGE, nil, "Client addresses the rate limiter tracks in the current window."},
	"parley_ratelimit_overflowed_requests": {dto.MetricType_GAUGE, nil, "Requests let through uncounted because the limiter's table was full."},
	"parley_init_limited_total":            {dto.MetricType_COUNTER, []string{"scope"}, "New conversations refused by an agent's per-address or per-visitor hourly limit, by scope."},
}

// checkFamilies parses an exposition with Prometheus's own parser and
// checks that every wanted family is there with its type, labels and help.
func checkFamilies(t *testing.T, exposition []byte, want map[string]family) map[string]*dto.MetricFamily {
	t.Helper()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	got, err := parser.TextToMetricFamilies(bytes.NewReader(exposition))
	if err != nil {
		t.Fatalf("/metrics does not parse: %v\n%s", err, exposition)
	}
	for name, w := range want {
		f := got[name]
		if f == nil {
			t.Errorf("%s is missing", name)
			continue
		}
		if f.GetType() != w.typ || f.GetHelp() != w.help {
			t.Errorf("%s: %v %q, want %v %q", name, f.GetType(), f.GetHelp(), w.typ, w.help)
		}
		for _, m := range f.Metric {
			var labels []string
			for _, l := range m.Label {
				labels = append(labels, l.GetName())
			}
			if !slices.Equal(labels, w.labels) {
				t.Errorf("%s has labels %v, want %v", name, labels, w.labels)
			}
		}
	}
	return got
}

// TestMetricsFamilies scrapes /metrics after traffic that reaches every
// series the service declares: a failing AI, a refusal by an agent's init
// limit, one by the account's quota.
func TestMetricsFamilies(t *testing.T) {
	t.Parallel()
	clk := newSettable(time.Date(2025, time.March, 10, 12, 10, 0, 0, time.UTC))
	e := newEnv(t, envOptions{initLimits: true, clock: clk.now, trusted: "127.0.0.1/32", rateLimit: 1000,
		responder: responderFunc(func(context.Context, agent.Request) (agent.Reply, error) {
			return agent.Reply{}, errors.New("the model is down")
		})})
	conv, _ := e.start()
	if r := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "hello"}, nil); r.status < 500 {
		t.Fatalf("chat with a failing AI: %d %s", r.status, r.raw)
	}
	_, tight := e.newAgent(e.account.ID, "Tight", `{"limits":{"conversations_per_ip_per_hour":1}}`)
	for _, want := range []int{200, 429} {
		if r := e.do("POST", "/api/widget/init", initBody(tight), from("203.0.113.7")); r.status != want {
			t.Fatalf("init under an agent's limit: %d %s, want %d", r.status, r.raw, want)
		}
	}
	if err := e.store.SetLimits(t.Context(), e.account.ID, domain.Limits{MonthlyConversations: 1}); err != nil {
		t.Fatal(err)
	}
	wantError(t, e.do("POST", "/api/widget/init", initBody(e.key), nil), 429, "quota")

	r := e.do("GET", "/metrics", nil, map[string]string{"remote": "127.0.0.1:9"})
	got := checkFamilies(t, r.raw, serviceFamilies)
	// The runtime's and the process's, from the client's collectors.
	for _, name := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "process_resident_memory_bytes", "process_open_fds"} {
		if got[name] == nil {
			t.Errorf("%s is missing", name)
		}
	}
	if t.Failed() {
		t.Logf("%s", r.raw)
	}
}
