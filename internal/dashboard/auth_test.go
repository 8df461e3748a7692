package dashboard

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"parley/internal/secret"
)

func TestSignIn(t *testing.T) {
	t.Parallel()
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

// Failed sign-ins make the same client wait longer and longer: five are
// free, then 1 s, 2 s, 4 s … after each failure. A refusal is a 429 with
// Retry-After that says how long in the page's language; while the client
// must wait even the right password is refused (no guess is checked), and
// after the wait it goes through.
func TestSignInWaitsGrow(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	now := time.Date(2026, 3, 20, 10, 1, 0, 0, time.UTC)
	td.d.Now = func() time.Time { return now }
	b := td.browser()
	wrong := url.Values{"email": {"owner@example.com"}, "password": {"guess"}}
	right := url.Values{"email": {"owner@example.com"}, "password": {"password1"}}
	for i := range 5 {
		if p := b.post("/signin", wrong); p.status != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d, want 401", i+1, p.status)
		}
	}
	for _, wait := range []int{1, 2, 4} {
		p := b.post("/signin", right)
		if p.status != http.StatusTooManyRequests || p.header.Get("Retry-After") != strconv.Itoa(wait) ||
			!strings.Contains(p.body, fmt.Sprintf("Too many attempts. Try again in %d s.", wait)) {
			t.Fatalf("want a wait of %d s: %d Retry-After %q", wait, p.status, p.header.Get("Retry-After"))
		}
		now = now.Add(time.Duration(wait) * time.Second)
		if p := b.post("/signin", wrong); p.status != http.StatusUnauthorized {
			t.Fatalf("after waiting %d s: %d, want 401", wait, p.status)
		}
	}
	req, _ := http.NewRequest("POST", td.srv.URL+"/signin", strings.NewReader(right.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept-Language", "ru")
	if p := b.do(req); p.status != http.StatusTooManyRequests || !strings.Contains(p.body, "Попробуйте снова через 8 с.") {
		t.Fatalf("in Russian: %d", p.status)
	}
	now = now.Add(8 * time.Second)
	if p := b.post("/signin", right); p.status != http.StatusSeeOther {
		t.Fatalf("the right password after the wait: %d", p.status)
	}
}

func TestSignUp(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	b := td.browser()
	for _, tt := range []struct {
		form   url.Values
		status int
		text   string
	}{
		{url.Values{"email": {"not-an-email"}, "password": {"Nina's long pass"}}, 400, "valid email"},
		{url.Values{"email": {"new@example.com"}, "password": {"short"}}, 400, "at least 10 characters"},
		{url.Values{"email": {"new@example.com"}, "password": {"password1"}}, 400, "at least 10 characters"},
		{url.Values{"email": {"new@example.com"}, "password": {"1q2w3e4r5t"}}, 400, "most common"},
		{url.Values{"email": {"new@example.com"}, "password": {"QWERTYUIOP"}}, 400, "most common"},
		{url.Values{"email": {"new@example.com"}, "password": {strings.Repeat("я", 37)}}, 400, "at most 72 bytes"},
		{url.Values{"email": {"owner@example.com"}, "password": {"Nina's long pass"}}, 409, "already registered"},
	} {
		if p := b.post("/signup", tt.form); p.status != tt.status || !strings.Contains(p.body, tt.text) {
			t.Fatalf("%v: %d", tt.form, p.status)
		}
	}
	p := b.post("/signup", url.Values{"email": {"new@example.com"}, "name": {"<b>Nina</b>"}, "password": {"Nina's long pass"}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("sign up: %d %s", p.status, p.body)
	}
	inbox := b.get("/inbox")
	if inbox.status != 200 || strings.Contains(inbox.body, "<b>Nina</b>") || !strings.Contains(inbox.body, "&lt;b&gt;Nina&lt;/b&gt;") {
		t.Fatalf("after sign-up: %d (the name must be escaped)", inbox.status)
	}

	td.d.Signup = false
	if p := td.browser().post("/signup", url.Values{"email": {"x@example.com"}, "password": {"Nina's long pass"}}); p.status != 403 {
		t.Fatalf("sign-up when off: %d", p.status)
	}
	if p := td.browser().get("/signin"); strings.Contains(p.body, `href="/signup"`) {
		t.Fatal("the sign-in page links to a sign-up that is off")
	}
}

func TestChangePassword(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	here, elsewhere := td.signedIn(td.owner), td.signedIn(td.owner)
	if p := here.post("/account/password", url.Values{"current": {"wrong"}, "new": {"a new passphrase"}}); p.status != 400 {
		t.Fatalf("wrong current password: %d", p.status)
	}
	for pw, want := range map[string]string{
		"pw":          "at least 10 characters",
		"password2":   "at least 10 characters",
		"Password123": "most common",
		"qwertyuiop":  "most common",
	} {
		if p := here.post("/account/password", url.Values{"current": {"password1"}, "new": {pw}}); p.status != 400 || !strings.Contains(p.body, want) {
			t.Errorf("new password %q: %d, want 400 with %q", pw, p.status, want)
		}
	}
	p := here.post("/account/password", url.Values{"current": {"password1"}, "new": {"a new passphrase"}})
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
	if p := td.browser().post("/signin", url.Values{"email": {"owner@example.com"}, "password": {"a new passphrase"}}); p.status != http.StatusSeeOther {
		t.Fatalf("new password: %d", p.status)
	}
}

func TestLanguage(t *testing.T) {
	t.Parallel()
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

// TestDummyHashCost: the hash checked for unknown emails costs what a
// user's does, so a sign-in's time does not tell whether the email has an
// account.
func TestDummyHashCost(t *testing.T) {
	t.Parallel()
	user, err := secret.HashPassword("password1")
	if err != nil {
		t.Fatal(err)
	}
	want, err := bcrypt.Cost([]byte(user))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := bcrypt.Cost([]byte(dummyHash)); err != nil || got != want {
		t.Fatalf("the dummy hash's cost is %d (%v), a user's %d", got, err, want)
	}
	if secret.CheckPassword(dummyHash, "") {
		t.Fatal("the dummy hash takes an empty password")
	}
}
