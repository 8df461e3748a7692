package dashboard

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

// usageTeamRoutes wires the usage and team pages the way the server will:
// usage for every signed-in user, the team for owners only. Sign-in is
// there to prove that invited operators can use their password.
func usageTeamRoutes(mux *http.ServeMux, d *Dashboard) {
	mux.HandleFunc("POST /signin", d.SignIn)
	mux.HandleFunc("GET /usage", d.requireUser(d.Usage))
	mux.HandleFunc("GET /team", d.requireOwner(d.Team))
	mux.HandleFunc("POST /team/members", d.requireOwner(d.InviteMember))
	mux.HandleFunc("POST /team/members/{id}/delete", d.requireOwner(d.RemoveMember))
	mux.HandleFunc("POST /team/tokens", d.requireOwner(d.CreateToken))
	mux.HandleFunc("POST /team/tokens/{id}/revoke", d.requireOwner(d.RevokeToken))
}

// withSession is a browser carrying a session of u made in the store
// directly (no password needed). It expires a day after both the real
// clock (the store purges by it) and the dashboard's clock (which decides
// validity), so a test may set the dashboard's clock anywhere.
func (td *testDash) withSession(u domain.User) *browser {
	td.t.Helper()
	token := secret.ID("", 32)
	expires := time.Now()
	if n := td.d.Now(); n.After(expires) {
		expires = n
	}
	if err := td.st.CreateSession(context.Background(), u.ID, secret.HashToken(token), expires.Add(24*time.Hour)); err != nil {
		td.t.Fatal(err)
	}
	b := td.browser()
	base, _ := url.Parse(td.srv.URL)
	b.c.Jar.SetCookies(base, []*http.Cookie{{Name: sessionCookie, Value: token, Path: "/"}})
	return b
}

func TestTeamIsForOwners(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, usageTeamRoutes)
	op := td.newUser("op@example.com", "Oleg Operator", td.owner.AccountID)
	owner, operator := td.withSession(td.owner), td.withSession(op)

	p := owner.get("/team")
	if p.status != http.StatusOK {
		t.Fatalf("owner: %d", p.status)
	}
	for _, want := range []string{
		"<bdi>Olga Owner</bdi> (you)", "Oleg Operator", // names are isolated (bidi.go) "op@example.com", "Owner", "Operator",
		`aria-label="Remove Oleg Operator"`, `action="/team/members/` + op.ID + `/delete"`,
		`<label for="invite-email">`, `<label for="invite-name">`, `<label for="invite-password">`, `<label for="token-name">`,
		"At least 10 characters, not a common password", `aria-describedby="invite-password-rule"`, `<th scope="col">`, `<th scope="row">`,
		"No API tokens yet.",
	} {
		if !strings.Contains(p.body, want) {
			t.Errorf("team page lacks %s", want)
		}
	}
	// No button to remove yourself.
	if strings.Contains(p.body, `/team/members/`+td.owner.ID+`/delete`) {
		t.Error("the team page offers to remove the signed-in owner")
	}

	// Operators get 403 on every team route, and nothing changes.
	for _, tt := range []struct{ method, path string }{
		{"GET", "/team"},
		{"POST", "/team/members"},
		{"POST", "/team/members/" + td.owner.ID + "/delete"},
		{"POST", "/team/tokens"},
		{"POST", "/team/tokens/tok_x/revoke"},
	} {
		var p page
		if tt.method == "GET" {
			p = operator.get(tt.path)
		} else {
			p = operator.post(tt.path, url.Values{"email": {"new@example.com"}, "password": {"long-enough"}, "name": {"x"}})
		}
		if p.status != http.StatusForbidden || !strings.Contains(p.body, "Only the account owner can do this.") {
			t.Errorf("operator %s %s: %d", tt.method, tt.path, p.status)
		}
	}
	if _, err := td.st.UserByEmail(context.Background(), "new@example.com"); !errors.Is(err, domain.ErrNotFound) {
		t.Error("an operator invited someone")
	}
	if toks, _ := td.st.APITokens(context.Background(), td.owner.AccountID); len(toks) != 0 {
		t.Error("an operator created a token")
	}
	// Without a session, the page sends you to sign in.
	if p := td.browser().get("/team"); p.status != http.StatusSeeOther || p.location != "/signin" {
		t.Errorf("no session: %d %q", p.status, p.location)
	}
}

func TestInviteOperator(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, usageTeamRoutes)
	ctx := context.Background()
	owner := td.withSession(td.owner)

	p := owner.post("/team/members", url.Values{"email": {" Oana@Example.com "}, "name": {"Oana"}, "password": {"temporary-1"}})
	if p.status != http.StatusSeeOther || p.location != "/team?flash=team.invited" {
		t.Fatalf("invite: %d %q %s", p.status, p.location, p.body)
	}
	u, err := td.st.UserByEmail(ctx, "oana@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if u.Role != domain.UserOperator || u.AccountID != td.owner.AccountID || u.Name != "Oana" || !secret.CheckPassword(u.PasswordHash, "temporary-1") {
		t.Fatalf("invited user: %+v", u)
	}
	if p := owner.get(p.location); !strings.Contains(p.body, "The operator was added and can sign in now.") || !strings.Contains(p.body, "oana@example.com") {
		t.Fatal("the team page does not confirm the invitation")
	}
	// The operator signs in with the temporary password.
	if p := td.browser().post("/signin", url.Values{"email": {"oana@example.com"}, "password": {"temporary-1"}}); p.status != http.StatusSeeOther {
		t.Fatalf("invited operator signs in: %d", p.status)
	}

	for _, tt := range []struct {
		name   string
		form   url.Values
		status int
		want   string
	}{
		{"short password", url.Values{"email": {"x@example.com"}, "name": {"X"}, "password": {"short"}}, 400, "The password must be at least 10 characters."},
		{"nine characters", url.Values{"email": {"x@example.com"}, "name": {"X"}, "password": {"temporary"}}, 400, "The password must be at least 10 characters."},
		{"common password", url.Values{"email": {"x@example.com"}, "name": {"X"}, "password": {"Password123"}}, 400, "This password is one of the most common ones."},
		{"bad email", url.Values{"email": {"not an email"}, "password": {"temporary-1"}}, 400, "Enter a valid email address."},
		{"long name", url.Values{"email": {"x@example.com"}, "name": {strings.Repeat("n", 101)}, "password": {"temporary-1"}}, 400, "at most 100 characters"},
		{"taken by a member", url.Values{"email": {"OANA@example.com"}, "password": {"temporary-1"}}, 409, "That email is taken."},
		{"taken by the owner", url.Values{"email": {"owner@example.com"}, "password": {"temporary-1"}}, 409, "That email is taken."},
	} {
		p := owner.post("/team/members", tt.form)
		if p.status != tt.status || !strings.Contains(p.body, tt.want) || !strings.Contains(p.body, `role="alert"`) {
			t.Errorf("%s: %d, want %d with %q", tt.name, p.status, tt.status, tt.want)
		}
		// The form keeps what was typed, except the password.
		if !strings.Contains(p.body, `value="`+tt.form.Get("email")+`"`) || strings.Contains(p.body, tt.form.Get("password")) {
			t.Errorf("%s: the form does not keep the email or echoes the password", tt.name)
		}
	}
	// Another account's owner's email is taken too.
	td.newUser("boss@other.example", "Boss", "")
	if p := owner.post("/team/members", url.Values{"email": {"boss@other.example"}, "password": {"temporary-1"}}); p.status != http.StatusConflict {
		t.Errorf("another account's email: %d", p.status)
	}
}

func TestRemoveMember(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, usageTeamRoutes)
	ctx := context.Background()
	op := td.newUser("op@example.com", "Oleg", td.owner.AccountID)
	owner, operator := td.withSession(td.owner), td.withSession(op)
	if p := operator.get("/usage"); p.status != http.StatusOK {
		t.Fatalf("operator before removal: %d", p.status)
	}

	p := owner.post("/team/members/"+op.ID+"/delete", nil)
	if p.status != http.StatusSeeOther || p.location != "/team?flash=team.removed" {
		t.Fatalf("remove: %d %q", p.status, p.location)
	}
	if _, err := td.st.User(ctx, td.owner.AccountID, op.ID); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("removed operator: %v", err)
	}
	// Their session ended with them.
	if p := operator.get("/usage"); p.status != http.StatusSeeOther || p.location != "/signin" {
		t.Fatalf("removed operator's session: %d %q", p.status, p.location)
	}
	// Removing again, or a made-up id: 404.
	if p := owner.post("/team/members/"+op.ID+"/delete", nil); p.status != http.StatusNotFound {
		t.Fatalf("remove twice: %d", p.status)
	}

	// You cannot remove yourself.
	p = owner.post("/team/members/"+td.owner.ID+"/delete", nil)
	if p.status != http.StatusBadRequest || !strings.Contains(p.body, "You cannot remove yourself.") {
		t.Fatalf("remove self: %d", p.status)
	}
	if _, err := td.st.User(ctx, td.owner.AccountID, td.owner.ID); err != nil {
		t.Fatal("the owner removed themselves")
	}

	// Another account's member is not found, and stays.
	other := td.newUser("other@example.com", "Other", "")
	theirOp := td.newUser("theirs@example.com", "Theirs", other.AccountID)
	for _, id := range []string{other.ID, theirOp.ID} {
		if p := owner.post("/team/members/"+id+"/delete", nil); p.status != http.StatusNotFound {
			t.Fatalf("another account's member: %d", p.status)
		}
		if _, err := td.st.User(ctx, other.AccountID, id); err != nil {
			t.Fatal("another account's member was removed")
		}
	}

	// A second owner may be removed by the first.
	co, err := td.st.CreateUser(ctx, store.NewUser{AccountID: td.owner.AccountID, Email: "co@example.com", Name: "Co", Role: domain.UserOwner})
	if err != nil {
		t.Fatal(err)
	}
	if p := owner.post("/team/members/"+co.ID+"/delete", nil); p.status != http.StatusSeeOther {
		t.Fatalf("remove a co-owner: %d", p.status)
	}
}

// The last owner can only be the target when the owner asking was removed
// meanwhile (two owners removing each other at once); the store refuses
// and the page says why.
func TestRemoveLastOwner(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, usageTeamRoutes)
	gone := domain.User{ID: "usr_gone", AccountID: td.owner.AccountID, Role: domain.UserOwner, Email: "gone@example.com"}
	r := httptest.NewRequest("POST", "/team/members/"+td.owner.ID+"/delete", nil)
	r.SetPathValue("id", td.owner.ID)
	r = r.WithContext(context.WithValue(r.Context(), userKey{}, gone))
	w := httptest.NewRecorder()
	td.d.RemoveMember(w, r)
	if w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), "The last owner of the account cannot be removed.") {
		t.Fatalf("remove the last owner: %d", w.Code)
	}
	if _, err := td.st.User(context.Background(), td.owner.AccountID, td.owner.ID); err != nil {
		t.Fatal("the last owner was removed")
	}
}

var newTokenField = regexp.MustCompile(`<input id="new-token"[^>]* value="(pt_[a-z2-7]+)"`)

func TestAPITokens(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, usageTeamRoutes)
	ctx := context.Background()
	owner := td.withSession(td.owner)

	p := owner.post("/team/tokens", url.Values{"name": {"CI deploys"}})
	if p.status != http.StatusOK {
		t.Fatalf("create token: %d %q", p.status, p.location)
	}
	m := newTokenField.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatal("the new token is not shown")
	}
	token := m[1]
	for _, want := range []string{"Copy the token now: it is not shown again.", `data-copy="new-token"`, `readonly`, `<label for="new-token"`, "CI deploys"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("token page lacks %s", want)
		}
	}
	if cc := p.header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("token page Cache-Control %q", cc)
	}
	acc, err := td.st.AccountByAPIToken(ctx, secret.HashToken(token))
	if err != nil || acc.ID != td.owner.AccountID {
		t.Fatalf("the token does not authenticate the account: %v", err)
	}
	// Shown once: the next page lists the token's name but not the token.
	if p := owner.get("/team"); strings.Contains(p.body, token) || !strings.Contains(p.body, "CI deploys") {
		t.Fatal("the token is shown again, or its name is missing")
	}

	if p := owner.post("/team/tokens", url.Values{"name": {"  "}}); p.status != http.StatusBadRequest || !strings.Contains(p.body, "Give the token a name") {
		t.Fatalf("token without a name: %d", p.status)
	}

	// Another account's token cannot be revoked from here.
	other := td.newUser("other@example.com", "Other", "")
	theirs, err := td.st.CreateAPIToken(ctx, other.AccountID, "theirs", secret.HashToken("pt_theirs"))
	if err != nil {
		t.Fatal(err)
	}
	if p := owner.post("/team/tokens/"+theirs.ID+"/revoke", nil); p.status != http.StatusNotFound {
		t.Fatalf("revoke another account's token: %d", p.status)
	}
	if _, err := td.st.AccountByAPIToken(ctx, secret.HashToken("pt_theirs")); err != nil {
		t.Fatal("another account's token was revoked")
	}

	toks, err := td.st.APITokens(ctx, td.owner.AccountID)
	if err != nil || len(toks) != 1 {
		t.Fatalf("tokens: %v %v", toks, err)
	}
	p = owner.post("/team/tokens/"+toks[0].ID+"/revoke", nil)
	if p.status != http.StatusSeeOther || p.location != "/team?flash=team.revoked" {
		t.Fatalf("revoke: %d %q", p.status, p.location)
	}
	if _, err := td.st.AccountByAPIToken(ctx, secret.HashToken(token)); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("a revoked token still authenticates: %v", err)
	}
	if p := owner.get(p.location); !strings.Contains(p.body, "The token was revoked") || strings.Contains(p.body, "CI deploys") {
		t.Fatal("the page after revoking")
	}
}

func TestTeamEscapesNames(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, usageTeamRoutes)
	owner := td.withSession(td.owner)
	hostile := `<script>alert(1)</script>"><img src=x onerror=alert(2)>`
	if p := owner.post("/team/members", url.Values{"email": {"evil@example.com"}, "name": {hostile}, "password": {"temporary-1"}}); p.status != http.StatusSeeOther {
		t.Fatalf("invite: %d", p.status)
	}
	p := owner.post("/team/tokens", url.Values{"name": {hostile}})
	if p.status != http.StatusOK {
		t.Fatalf("token: %d", p.status)
	}
	for _, body := range []string{p.body, owner.get("/team").body} {
		if strings.Contains(body, "<script>alert") || strings.Contains(body, "<img src=x") {
			t.Fatal("a name is not escaped")
		}
		if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Fatal("the escaped name is missing")
		}
	}
	// A hostile name typed into a failed form comes back escaped too.
	p = owner.post("/team/members", url.Values{"email": {"x@example.com"}, "name": {hostile}, "password": {"short"}})
	if strings.Contains(p.body, "<script>alert") || strings.Contains(p.body, `"><img`) {
		t.Fatal("the form echoes a name unescaped")
	}
}
