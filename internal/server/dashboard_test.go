package server

import (
	"net/http"
	"strings"
	"testing"
)

// Every dashboard page needs a session: pages send anonymous visitors to
// sign in, state changes refuse them.
func TestDashboardNeedsASession(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	for _, path := range []string{"/inbox", "/conversations/cv_x", "/agents", "/agents/ag_x", "/usage", "/team", "/account/password"} {
		r := e.do("GET", path, nil, nil)
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/signin" {
			t.Errorf("GET %s anonymous: %d %q", path, r.status, r.header.Get("Location"))
		}
	}
	for _, path := range []string{"/conversations/cv_x/takeover", "/conversations/cv_x/reply", "/agents", "/agents/ag_x/keys", "/team/members", "/team/tokens", "/account/password"} {
		if r := e.do("POST", path, "", nil); r.status != http.StatusUnauthorized {
			t.Errorf("POST %s anonymous: %d", path, r.status)
		}
	}
}

// The dashboard refuses cross-origin state changes (CSRF) and carries a
// strict Content-Security-Policy; the widget API stays open to all origins.
func TestDashboardSecurityHeadersAndCSRF(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	r := e.do("GET", "/signin", nil, nil)
	csp := r.header.Get("Content-Security-Policy")
	if r.status != 200 || !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") ||
		!strings.Contains(csp, "frame-ancestors 'none'") || r.header.Get("X-Frame-Options") != "DENY" {
		t.Fatalf("sign-in page headers: %d %v", r.status, r.header)
	}
	if r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatal("the dashboard allows other origins")
	}
	for _, h := range []map[string]string{
		{"Sec-Fetch-Site": "cross-site", "Content-Type": "application/x-www-form-urlencoded"},
		{"Origin": "https://evil.example", "Content-Type": "application/x-www-form-urlencoded"},
	} {
		r := e.do("POST", "/signin", "email=owner%40example.com&password=x", h)
		if r.status != http.StatusForbidden {
			t.Errorf("cross-origin POST %v: %d, want 403", h, r.status)
		}
	}
	// Same-origin posts go through (to a wrong password here).
	same := e.do("POST", "/signin", "email=owner%40example.com&password=x",
		map[string]string{"Sec-Fetch-Site": "same-origin", "Content-Type": "application/x-www-form-urlencoded"})
	if same.status != http.StatusUnauthorized {
		t.Fatalf("same-origin POST: %d", same.status)
	}
}
