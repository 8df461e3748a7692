package server

import (
	"strings"
	"testing"

	"parley/web"
)

func TestWidgetJS(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	r := e.do("GET", "/widget.js", nil, map[string]string{"Accept-Encoding": "gzip"})
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "application/javascript") ||
		r.header.Get("Content-Encoding") != "gzip" || r.header.Get("ETag") == "" || r.header.Get("Cache-Control") == "" {
		t.Fatalf("widget.js: %d %v", r.status, r.header)
	}
	if r := e.do("GET", "/widget.js", nil, map[string]string{"Accept-Encoding": "gzip", "If-None-Match": r.header.Get("ETag")}); r.status != 304 {
		t.Fatalf("revalidation: %d", r.status)
	}
	if r := e.do("GET", "/widget.js", nil, map[string]string{"Accept-Encoding": "gzip, deflate, br"}); r.header.Get("Content-Encoding") != "br" {
		t.Fatalf("brotli: %v", r.header)
	}
	plain := e.do("GET", "/widget.js", nil, nil)
	// The loader names the UI chunk the server serves.
	if plain.header.Get("Content-Encoding") != "" || !strings.Contains(string(plain.raw), web.WidgetUIName) {
		t.Fatal("identity widget.js is not the loader of this build's UI chunk")
	}
}

func TestWidgetUIChunk(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	for path, cache := range map[string]string{"/" + web.WidgetUIName: web.CacheImmutable, "/widget-ui.js": web.CacheShort} {
		r := e.do("GET", path, nil, map[string]string{"Origin": "https://shop.example"})
		if r.status != 200 || r.header.Get("Cache-Control") != cache || r.header.Get("Access-Control-Allow-Origin") != "*" ||
			!strings.HasPrefix(r.header.Get("Content-Type"), "application/javascript") || !strings.Contains(string(r.raw), "api/widget/init") {
			t.Errorf("%s: %d %v", path, r.status, r.header)
		}
	}
	if r := e.do("GET", "/widget-ui.0123456789ab.js", nil, nil); r.status != 404 {
		t.Errorf("an unknown chunk: %d", r.status)
	}
}

func TestHealthzAndMetrics(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{rateLimit: 1})
	if r := e.do("GET", "/healthz", nil, nil); r.status != 200 || r.str("status") != "ok" {
		t.Fatalf("healthz: %d %s", r.status, r.raw)
	}
	e.start()
	e.do("POST", "/api/widget/init", map[string]any{"key": e.key}, nil) // rate limited
	// Metrics answer local clients only.
	m := e.do("GET", "/metrics", nil, map[string]string{"remote": "127.0.0.1:9"})
	body := string(m.raw)
	for _, want := range []string{
		`parley_http_requests_total{route="POST /api/widget/init",status="200"} 1`,
		`parley_http_requests_total{route="POST /api/widget/init",status="429"} 1`,
		`parley_ratelimit_refused_total 1`,
		`parley_ratelimit_tracked_addresses 1`,
		`parley_longpolls_waiting 0`,
		`parley_http_request_duration_seconds_bucket{route="POST /api/widget/init",le="+Inf"} 2`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if t.Failed() {
		t.Log(body)
	}
}

func TestDemoAndIndexPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	r := e.do("GET", "/demo", nil, nil)
	if r.status != 200 || !strings.Contains(string(r.raw), "No demo agent") {
		t.Fatalf("demo without a key: %d %s", r.status, r.raw)
	}
	// "/" is the dashboard: without a session, the sign-in page.
	if r := e.do("GET", "/", nil, nil); r.status != 303 || r.header.Get("Location") != "/signin" {
		t.Fatalf("/: %d %v", r.status, r.header)
	}
	if r := e.do("GET", "/api/openapi.json", nil, nil); r.status != 200 || r.str("openapi") != "3.1.0" {
		t.Fatalf("openapi: %d", r.status)
	}
}
