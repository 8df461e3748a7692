package dashboard

import (
	"net/http"
	"net/url"
	"strings"
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

// The dashboard records the user's language (for the mail sent to them,
// package offline): at sign-in, the page's language then (the switch's
// cookie, else the browser's Accept-Language); at the switch, when
// signed in. A switch before signing in only sets the cookie.
func TestUserLanguageIsRecorded(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	ctx := t.Context()
	if err := td.st.SetWaitAlert(ctx, td.owner.AccountID, td.owner.ID, 5); err != nil {
		t.Fatal(err)
	}
	recorded := func() string {
		t.Helper()
		l, err := td.st.WaitAlerts(ctx, td.owner.AccountID)
		if err != nil || len(l) != 1 {
			t.Fatalf("WaitAlerts = %+v, %v", l, err)
		}
		return l[0].Lang
	}
	b := td.browser()
	if p := b.post("/language", url.Values{"lang": {"ro"}, "back": {"/signin"}}); p.status != http.StatusSeeOther {
		t.Fatalf("switch: %d", p.status)
	}
	if got := recorded(); got != "" {
		t.Fatalf("a switch before signing in recorded %q", got)
	}
	if r := b.post("/signin", url.Values{"email": {td.owner.Email}, "password": {"password1"}}); r.status != http.StatusSeeOther {
		t.Fatalf("sign in: %d", r.status)
	}
	if got := recorded(); got != "ro" {
		t.Fatalf("after signing in with the Romanian switch: %q, want ro", got)
	}
	b.post("/language", url.Values{"lang": {"ru"}, "back": {"/inbox"}})
	if got := recorded(); got != "ru" {
		t.Fatalf("after switching to Russian: %q, want ru", got)
	}
	b.post("/language", url.Values{"lang": {"de"}, "back": {"/inbox"}})
	if got := recorded(); got != "ru" {
		t.Fatalf("a language Parley does not speak was recorded: %q", got)
	}
	// Another browser, no cookie: its Accept-Language.
	other := td.browser()
	req, _ := http.NewRequest("POST", td.srv.URL+"/signin", strings.NewReader(url.Values{"email": {td.owner.Email}, "password": {"password1"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept-Language", "de-DE, ro-RO;q=0.8, en;q=0.5")
	if r := other.do(req); r.status != http.StatusSeeOther {
		t.Fatalf("sign in: %d", r.status)
	}
	if got := recorded(); got != "ro" {
		t.Fatalf("after signing in with Accept-Language: %q, want ro", got)
	}
}
