package dashboard

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestSignIn(t *testing.T) {
	td := newTestDash(t, allRoutes)
	b := td.browser()
	if p := b.get("/"); p.status != http.StatusSeeOther || p.location != "/signin" {
		t.Fatalf("/ without a session: %d %q", p.status, p.location)
	}
	if p := b.get("/inbox"); p.status != http.StatusSeeOther || p.location != "/signin" {
		t.Fatalf("/inbox without a session: %d %q", p.status, p.location)
	}
	p := b.get("/signin")
	for _, want := range []string{`<label for="email">Email</label>`, `<label for="password">Password</label>`, `>Sign in</button>`} {
		if !strings.Contains(p.body, want) {
			t.Fatalf("sign-in page lacks %s", want)
		}
	}
	for _, tt := range []struct{ email, password string }{
		{"owner@example.com", "wrong-password"},
		{"nobody@example.com", "password1"},
		{"", ""},
	} {
		p := b.post("/signin", url.Values{"email": {tt.email}, "password": {tt.password}})
		if p.status != http.StatusUnauthorized || !strings.Contains(p.body, "Wrong email or password.") {
			t.Fatalf("%s/%s: %d", tt.email, tt.password, p.status)
		}
	}
	// The email is case-insensitive; the inbox is the first page.
	p = b.post("/signin", url.Values{"email": {"Owner@Example.com"}, "password": {"password1"}})
	if p.status != http.StatusSeeOther || p.location != "/inbox" {
		t.Fatalf("sign in: %d %q", p.status, p.location)
	}
	cookie := p.header.Get("Set-Cookie")
	for _, want := range []string{"parley_session=", "HttpOnly", "SameSite=Lax", "Path=/"} {
		if !strings.Contains(cookie, want) {
			t.Fatalf("session cookie %q lacks %s", cookie, want)
		}
	}
	if p := b.get("/inbox"); p.status != 200 || !strings.Contains(p.body, "Olga Owner") {
		t.Fatalf("inbox after sign-in: %d", p.status)
	}
	// Signing out ends the session on the server, not only in the browser.
	b.post("/signout", nil)
	if p := b.get("/inbox"); p.status != http.StatusSeeOther {
		t.Fatalf("inbox after sign-out: %d", p.status)
	}
}

func TestSignInIsRateLimited(t *testing.T) {
	td := newTestDash(t, allRoutes)
	// A fixed clock: the limit counts in 15-minute windows, and a window
	// ending mid-test would reset the count.
	now := time.Date(2026, 3, 20, 10, 1, 0, 0, time.UTC)
	td.d.Now = func() time.Time { return now }
	b := td.browser()
	for range 10 {
		b.post("/signin", url.Values{"email": {"owner@example.com"}, "password": {"guess"}})
	}
	// Even the right password is refused for a while after ten failures.
	p := b.post("/signin", url.Values{"email": {"owner@example.com"}, "password": {"password1"}})
	if p.status != http.StatusTooManyRequests || !strings.Contains(p.body, "Too many attempts") {
		t.Fatalf("after 10 failures: %d", p.status)
	}
}

func TestSignUp(t *testing.T) {
	td := newTestDash(t, allRoutes)
	b := td.browser()
	for _, tt := range []struct {
		form   url.Values
		status int
		text   string
	}{
		{url.Values{"email": {"not-an-email"}, "password": {"password1"}}, 400, "valid email"},
		{url.Values{"email": {"new@example.com"}, "password": {"short"}}, 400, "8 to 72"},
		{url.Values{"email": {"owner@example.com"}, "password": {"password1"}}, 409, "already registered"},
	} {
		if p := b.post("/signup", tt.form); p.status != tt.status || !strings.Contains(p.body, tt.text) {
			t.Fatalf("%v: %d", tt.form, p.status)
		}
	}
	p := b.post("/signup", url.Values{"email": {"new@example.com"}, "name": {"<b>Nina</b>"}, "password": {"password1"}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("sign up: %d %s", p.status, p.body)
	}
	inbox := b.get("/inbox")
	if inbox.status != 200 || strings.Contains(inbox.body, "<b>Nina</b>") || !strings.Contains(inbox.body, "&lt;b&gt;Nina&lt;/b&gt;") {
		t.Fatalf("after sign-up: %d (the name must be escaped)", inbox.status)
	}

	td.d.Signup = false
	if p := td.browser().post("/signup", url.Values{"email": {"x@example.com"}, "password": {"password1"}}); p.status != 403 {
		t.Fatalf("sign-up when off: %d", p.status)
	}
	if p := td.browser().get("/signin"); strings.Contains(p.body, `href="/signup"`) {
		t.Fatal("the sign-in page links to a sign-up that is off")
	}
}

func TestChangePassword(t *testing.T) {
	td := newTestDash(t, allRoutes)
	here, elsewhere := td.signedIn(td.owner), td.signedIn(td.owner)
	if p := here.post("/account/password", url.Values{"current": {"wrong"}, "new": {"password2"}}); p.status != 400 {
		t.Fatalf("wrong current password: %d", p.status)
	}
	if p := here.post("/account/password", url.Values{"current": {"password1"}, "new": {"pw"}}); p.status != 400 {
		t.Fatalf("short new password: %d", p.status)
	}
	p := here.post("/account/password", url.Values{"current": {"password1"}, "new": {"password2"}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("change: %d", p.status)
	}
	if p := here.get("/account/password?flash=password.done"); !strings.Contains(p.body, "Password changed.") {
		t.Fatal("no confirmation")
	}
	// Other sessions end; this one goes on; the new password works.
	if p := elsewhere.get("/inbox"); p.status != http.StatusSeeOther {
		t.Fatalf("the other session survived: %d", p.status)
	}
	if p := here.get("/inbox"); p.status != 200 {
		t.Fatalf("this session ended: %d", p.status)
	}
	if p := td.browser().post("/signin", url.Values{"email": {"owner@example.com"}, "password": {"password2"}}); p.status != http.StatusSeeOther {
		t.Fatalf("new password: %d", p.status)
	}
}

func TestLanguage(t *testing.T) {
	td := newTestDash(t, allRoutes)
	b := td.browser()
	req, _ := http.NewRequest("GET", td.srv.URL+"/signin", nil)
	req.Header.Set("Accept-Language", "ru-RU,ru;q=0.9,en;q=0.5")
	if p := b.do(req); !strings.Contains(p.body, `lang="ru"`) || !strings.Contains(p.body, ">Войти</button>") {
		t.Fatal("Accept-Language ru did not give a Russian page")
	}
	p := b.post("/language", url.Values{"lang": {"ro"}, "back": {"/signin"}})
	if p.status != http.StatusSeeOther || p.location != "/signin" {
		t.Fatalf("switch: %d %q", p.status, p.location)
	}
	if p := b.do(req); !strings.Contains(p.body, `lang="ro"`) || !strings.Contains(p.body, ">Intră</button>") {
		t.Fatal("the switch did not win over Accept-Language")
	}
	for _, back := range []string{"https://evil.example/", "//evil.example/x"} {
		if p := b.post("/language", url.Values{"lang": {"en"}, "back": {back}}); p.location != "/" {
			t.Fatalf("open redirect to %q: %q", back, p.location)
		}
	}
}
