package dashboard

import (
	"net/http"
	"net/url"
	"testing"
)

// The language switch goes back only to a path of this site: every form a
// browser could read as another site, or that is not a plain path, sends
// the user to "/".
func TestSameSitePath(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ back, want string }{
		{"/inbox", "/inbox"},
		{"/conversations/cv_1?lost=1#reply", "/conversations/cv_1?lost=1#reply"},
		{"/agents/ag_1?flash=kb.saved", "/agents/ag_1?flash=kb.saved"},
		{"/", "/"},
		{"/%2F%2Fevil.test", "/%2F%2Fevil.test"}, // an encoded slash is a path segment, not a host
		{"", "/"},
		{"inbox", "/"},
		{"//evil.test", "/"},
		{"///evil.test", "/"},
		{`/\evil.test`, "/"},
		{`\/evil.test`, "/"},
		{`/\/evil.test`, "/"},
		{`\\evil.test`, "/"},
		{"/\t/evil.test", "/"}, // browsers drop tabs and newlines: //evil.test
		{"/\n/evil.test", "/"},
		{"/\r/evil.test", "/"},
		{"/inbox\r\nSet-Cookie: x=1", "/"},
		{"/\x00", "/"},
		{"/\x7f", "/"},
		{"https://evil.test/", "/"},
		{"http:/evil.test", "/"},
		{"javascript:alert(1)", "/"},
		{" /inbox", "/"},
		{"/%zz", "/"}, // not a URL
	} {
		if got := sameSitePath(tt.back); got != tt.want {
			t.Errorf("sameSitePath(%q) = %q, want %q", tt.back, got, tt.want)
		}
	}
}

func TestLanguageSwitchRefusesBackslashRedirect(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	b := td.browser()
	for back, want := range map[string]string{`/\evil.test`: "/", "/\t/evil.test": "/", "/signin": "/signin"} {
		p := b.post("/language", url.Values{"lang": {"ru"}, "back": {back}})
		if p.status != http.StatusSeeOther || p.location != want {
			t.Errorf("back=%q: %d to %q, want 303 to %q", back, p.status, p.location, want)
		}
	}
}
