package server

import (
	"strings"
	"testing"
)

// /metrics answers only a client on this machine that did not come
// through a proxy; everyone else gets exactly the answer of an unknown
// path, whatever the method.
func TestMetricsOnlyForLocalClients(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	unknown := e.do("GET", "/no-such-thing", nil, map[string]string{"remote": "203.0.113.9:1"})
	for _, tt := range []struct {
		name   string
		method string
		hdr    map[string]string
		want   int
	}{
		{"loopback", "GET", map[string]string{"remote": "127.0.0.1:4000"}, 200},
		{"loopback v6", "GET", map[string]string{"remote": "[::1]:4000"}, 200},
		{"loopback HEAD", "HEAD", map[string]string{"remote": "127.0.0.1:4000"}, 200},
		{"loopback POST", "POST", map[string]string{"remote": "127.0.0.1:4000"}, 405},
		{"public address", "GET", map[string]string{"remote": "203.0.113.9:1"}, 404},
		{"public address POST", "POST", map[string]string{"remote": "203.0.113.9:1"}, 404},
		{"private address", "GET", map[string]string{"remote": "10.0.0.7:1"}, 404},
		{"proxied: X-Forwarded-For", "GET", map[string]string{"remote": "127.0.0.1:4000", "X-Forwarded-For": "127.0.0.1"}, 404},
		{"proxied: Forwarded", "GET", map[string]string{"remote": "127.0.0.1:4000", "Forwarded": "for=198.51.100.1"}, 404},
		{"proxied: X-Real-IP", "GET", map[string]string{"remote": "127.0.0.1:4000", "X-Real-IP": "198.51.100.1"}, 404},
	} {
		r := e.do(tt.method, "/metrics", nil, tt.hdr)
		if r.status != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, r.status, tt.want)
			continue
		}
		switch {
		case tt.want == 200 && tt.method == "GET" && !strings.Contains(string(r.raw), "parley_http_requests_total"):
			t.Errorf("%s: no series in %q", tt.name, r.raw)
		case tt.want == 404 && strings.Replace(string(r.raw), "/metrics", "/no-such-thing", 1) != string(unknown.raw):
			t.Errorf("%s: %q differs from an unknown path's %q", tt.name, r.raw, unknown.raw)
		}
	}
}

// With a listener of its own for the metrics, the main handler has no
// /metrics at all.
func TestMetricsElsewhere(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.handler.(*Server).MetricsElsewhere = true
	if r := e.do("GET", "/metrics", nil, map[string]string{"remote": "127.0.0.1:4000"}); r.status != 404 || r.str("error") == "" {
		t.Fatalf("/metrics from loopback with its own listener: %d %s", r.status, r.raw)
	}
}
