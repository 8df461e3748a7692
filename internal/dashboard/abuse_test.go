package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The attacks of issue 14 (items 2 and 4) against the dashboard's forms.
// Clients at different addresses are browsers on different loopback
// addresses; the dashboard's clock is the test's.

func (td *testDash) accounts() int {
	td.t.Helper()
	n, err := td.st.CountAccounts(context.Background())
	if err != nil {
		td.t.Fatal(err)
	}
	return n
}

// Every field of the sign-up is bounded, and so is its body; nothing too
// large is stored.
func TestSignUpBounds(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	b := td.browser()
	const pw = "a long enough one"
	for _, tt := range []struct {
		name   string
		form   url.Values
		status int
		want   string
	}{
		{"name of 101 characters", url.Values{"email": {"a@example.com"}, "name": {strings.Repeat("ж", 101)}, "password": {pw}}, 400, "at most 100 characters"},
		{"email of 255 bytes", url.Values{"email": {strings.Repeat("e", 243) + "@example.com"}, "password": {pw}}, 400, "valid email"},
		{"body over 16 KiB", url.Values{"email": {"a@example.com"}, "name": {"A"}, "password": {pw}, "x": {strings.Repeat("x", 16<<10)}}, 413, "The form is too large."},
	} {
		p := b.post("/signup", tt.form)
		if p.status != tt.status || !strings.Contains(p.body, tt.want) {
			t.Errorf("%s: %d, want %d with %q", tt.name, p.status, tt.status, tt.want)
		}
		if strings.Contains(p.body, strings.Repeat("ж", 101)) {
			t.Errorf("%s: the page echoes the long name", tt.name)
		}
	}
	if n := td.accounts(); n != 1 {
		t.Fatalf("%d accounts after refused sign-ups, want only the fixture's", n)
	}
	// At the limits: a name of 100 characters, an email of 254 bytes.
	email := strings.Repeat("e", 242) + "@example.com"
	if p := b.post("/signup", url.Values{"email": {email}, "name": {strings.Repeat("ж", 100)}, "password": {pw}}); p.status != http.StatusSeeOther {
		t.Fatalf("sign-up at the limits: %d", p.status)
	}
}

// One network makes SignupsPerHour accounts an hour; the next is a 429
// that says when to come back, while another address still signs up.
func TestSignUpIsLimitedPerNetwork(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	now := time.Date(2026, 3, 20, 10, 1, 0, 0, time.UTC)
	td.d.Now = func() time.Time { return now }
	signUp := func(b *browser, email string) page {
		return b.post("/signup", url.Values{"email": {email}, "password": {"a long enough one"}})
	}
	flood := td.browserFrom("127.0.0.7")
	for i := range SignupsPerHour {
		if p := signUp(flood, fmt.Sprintf("flood%d@example.com", i)); p.status != http.StatusSeeOther {
			t.Fatalf("sign-up %d: %d", i+1, p.status)
		}
	}
	p := signUp(flood, "one-more@example.com")
	if p.status != http.StatusTooManyRequests || p.header.Get("Retry-After") != strconv.Itoa(59*60) ||
		!strings.Contains(p.body, "Too many sign-ups from your network. Try again in 59 min.") {
		t.Fatalf("sign-up %d: %d Retry-After %q", SignupsPerHour+1, p.status, p.header.Get("Retry-After"))
	}
	if p := signUp(td.browserFrom("127.0.0.8"), "elsewhere@example.com"); p.status != http.StatusSeeOther {
		t.Fatalf("another address: %d", p.status)
	}
	if n := td.accounts(); n != 1+SignupsPerHour+1 {
		t.Fatalf("%d accounts, want %d", n, 1+SignupsPerHour+1)
	}
	now = now.Add(59 * time.Minute) // the next hour
	if p := signUp(flood, "one-more@example.com"); p.status != http.StatusSeeOther {
		t.Fatalf("an hour later: %d", p.status)
	}
}

// An attacker's hundred wrong passwords on the owner's email, waiting as
// told between them, do not keep the owner out: the owner at another
// address signs in with the right password at once. The attacker waits.
func TestOwnerSignsInWhileAttackerHammers(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	now := time.Now() // sessions made on the way must outlive the store's real clock
	td.d.Now = func() time.Time { return now }
	attacker := td.browserFrom("127.0.0.2")
	failures, refused := 0, 0
	for failures < 100 {
		p := attacker.post("/signin", url.Values{"email": {"owner@example.com"}, "password": {fmt.Sprint("guess-", failures)}})
		switch p.status {
		case http.StatusUnauthorized:
			failures++
		case http.StatusTooManyRequests:
			refused++
			secs, err := strconv.Atoi(p.header.Get("Retry-After"))
			if err != nil || secs < 1 {
				t.Fatalf("429 without a Retry-After: %q", p.header.Get("Retry-After"))
			}
			now = now.Add(time.Duration(secs) * time.Second)
		default:
			t.Fatalf("attacker: %d", p.status)
		}
	}
	if p := attacker.post("/signin", url.Values{"email": {"owner@example.com"}, "password": {"password1"}}); p.status != http.StatusTooManyRequests {
		t.Fatalf("the attacker, now with the right password: %d, want 429", p.status)
	}
	owner := td.browserFrom("127.0.0.3")
	if p := owner.post("/signin", url.Values{"email": {"Owner@example.com"}, "password": {"password1"}}); p.status != http.StatusSeeOther {
		t.Fatalf("the owner at their own address, after %d failures and %d refusals elsewhere: %d", failures, refused, p.status)
	}
	if p := owner.get("/inbox"); p.status != http.StatusOK {
		t.Fatalf("the owner's inbox: %d", p.status)
	}
}

// One address trying a password on many emails (spraying) is told to wait
// after twenty failures, whichever email comes next.
func TestSprayingIsThrottled(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	now := time.Date(2026, 3, 20, 10, 1, 0, 0, time.UTC)
	td.d.Now = func() time.Time { return now }
	sprayer := td.browserFrom("127.0.0.4")
	for i := range 20 {
		email := fmt.Sprintf("user%d@example.com", i)
		td.newUser(email, "", "")
		if p := sprayer.post("/signin", url.Values{"email": {email}, "password": {"Summer2026!"}}); p.status != http.StatusUnauthorized {
			t.Fatalf("email %d: %d, want 401", i+1, p.status)
		}
	}
	p := sprayer.post("/signin", url.Values{"email": {"owner@example.com"}, "password": {"Summer2026!"}})
	if p.status != http.StatusTooManyRequests || p.header.Get("Retry-After") != "1" {
		t.Fatalf("the 21st email: %d Retry-After %q, want 429 and 1", p.status, p.header.Get("Retry-After"))
	}
	if p := td.browserFrom("127.0.0.5").post("/signin", url.Values{"email": {"owner@example.com"}, "password": {"password1"}}); p.status != http.StatusSeeOther {
		t.Fatalf("the owner elsewhere: %d", p.status)
	}
}

// Guessing the current password on the change-password page counts as
// failed sign-ins: a stolen session does not guess faster there.
func TestChangePasswordGuessesAreThrottled(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	now := time.Now() // sessions made on the way must outlive the store's real clock
	td.d.Now = func() time.Time { return now }
	b := td.signedIn(td.owner)
	for i := range 5 {
		if p := b.post("/account/password", url.Values{"current": {fmt.Sprint("guess-", i)}, "new": {"a new passphrase"}}); p.status != http.StatusBadRequest {
			t.Fatalf("guess %d: %d", i+1, p.status)
		}
	}
	p := b.post("/account/password", url.Values{"current": {"password1"}, "new": {"a new passphrase"}})
	if p.status != http.StatusTooManyRequests || p.header.Get("Retry-After") != "1" || !strings.Contains(p.body, "Try again in 1 s.") {
		t.Fatalf("after five wrong current passwords: %d", p.status)
	}
}

// The dashboard's forms read at most 16 KiB; a reply, up to 2,000
// characters of any script, has room for more.
func TestFormBodiesAreBounded(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, func(mux *http.ServeMux, d *Dashboard) {
		allRoutes(mux, d)
		mux.HandleFunc("POST /team/members", d.requireOwner(d.InviteMember))
	})
	big := strings.Repeat("x", 17<<10)
	b := td.signedIn(td.owner)
	for path, form := range map[string]url.Values{
		"/signin":           {"email": {"owner@example.com"}, "password": {"password1"}, "pad": {big}},
		"/signup":           {"email": {"x@example.com"}, "password": {"a long enough one"}, "pad": {big}},
		"/account/password": {"current": {"password1"}, "new": {"a new passphrase"}, "pad": {big}},
		"/team/members":     {"email": {"op@example.com"}, "password": {"a long enough one"}, "pad": {big}},
	} {
		if p := b.post(path, form); p.status != http.StatusRequestEntityTooLarge || !strings.Contains(p.body, "The form is too large.") {
			t.Errorf("POST %s of 17 KiB: %d, want 413", path, p.status)
		}
	}
	if n := td.accounts(); n != 1 {
		t.Fatalf("%d accounts, want 1", n)
	}
	if us, _ := td.st.Users(context.Background(), td.owner.AccountID); len(us) != 1 {
		t.Fatalf("%d members, want 1", len(us))
	}
	conv := td.visit("hi")
	// 2,000 emoji: 8,000 bytes, 24,000 URL-encoded.
	if p := b.post("/conversations/"+conv+"/reply", url.Values{"text": {strings.Repeat("😀", 2000)}}); p.status != http.StatusSeeOther {
		t.Fatalf("a reply of 2,000 emoji: %d", p.status)
	}
	if p := b.post("/conversations/"+conv+"/reply", url.Values{"text": {strings.Repeat("x", 70<<10)}}); p.status != http.StatusRequestEntityTooLarge {
		t.Fatalf("a reply of 70 KiB: %d, want 413", p.status)
	}
}
