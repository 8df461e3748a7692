package server

import (
	"bytes"
	"strings"
	"testing"

	"parley/web"
)

// /demo is a page like the dashboard's: the same CSP and frame headers,
// and a favicon, which /favicon.ico serves.
func TestDemoHeadersAndFavicon(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	dash := e.do("GET", "/signin", nil, nil)
	demo := e.do("GET", "/demo", nil, nil)
	if demo.status != 200 {
		t.Fatalf("demo: %d", demo.status)
	}
	for _, h := range []string{"Content-Security-Policy", "X-Frame-Options", "Referrer-Policy", "X-Content-Type-Options"} {
		if got, want := demo.header.Get(h), dash.header.Get(h); got == "" || got != want {
			t.Errorf("/demo %s = %q, want the dashboard's %q", h, got, want)
		}
	}
	for name, page := range map[string]response{"demo": demo, "dashboard": dash} {
		if !strings.Contains(string(page.raw), `<link rel="icon" href="/favicon.ico">`) {
			t.Errorf("the %s page does not link the favicon", name)
		}
	}
	ico := e.do("GET", "/favicon.ico", nil, nil)
	if ico.status != 200 || ico.header.Get("Content-Type") != "image/x-icon" || !bytes.Equal(ico.raw, web.Favicon) || !bytes.HasPrefix(ico.raw, []byte{0, 0, 1, 0}) {
		t.Fatalf("favicon: %d %q, %d bytes", ico.status, ico.header.Get("Content-Type"), len(ico.raw))
	}
}
