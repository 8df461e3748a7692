package server

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"parley/internal/secret"
)

// The dashboard's sources forms are behind the same cross-origin (CSRF)
// protection and session as every other dashboard form: a cross-site
// post changes nothing, a same-origin one of a signed-in owner does.
func TestDashboardSourcesCSRF(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	owner, err := e.store.UserByEmail(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	token := secret.ID("", 32)
	if err := e.store.CreateSession(ctx, owner.ID, secret.HashToken(token), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	form := func(site string) map[string]string {
		return map[string]string{"Cookie": "parley_session=" + token, "Sec-Fetch-Site": site, "Content-Type": "application/x-www-form-urlencoded"}
	}
	base := "/agents/" + e.agent.ID + "/sources"
	count := func() int {
		list, err := e.store.Sources(ctx, e.account.ID, e.agent.ID)
		if err != nil {
			t.Fatal(err)
		}
		return len(list)
	}

	if r := e.do("POST", base, "url=https%3A%2F%2F93.184.215.14%2F", form("cross-site")); r.status != http.StatusForbidden || count() != 0 {
		t.Fatalf("cross-site add: %d, %d sources", r.status, count())
	}
	if r := e.do("POST", base, "url=https%3A%2F%2F93.184.215.14%2F", nil); r.status != http.StatusUnauthorized || count() != 0 {
		t.Fatalf("anonymous add: %d, %d sources", r.status, count())
	}
	r := e.do("POST", base, "url=https%3A%2F%2F93.184.215.14%2F&max_pages=20&sync_every=12h", form("same-origin"))
	if r.status != http.StatusSeeOther || count() != 1 {
		t.Fatalf("same-origin add: %d, %d sources", r.status, count())
	}
	list, _ := e.store.Sources(ctx, e.account.ID, e.agent.ID)
	sid := list[0].ID
	page := e.do("GET", "/agents/"+e.agent.ID, nil, map[string]string{"Cookie": "parley_session=" + token})
	if page.status != 200 || !strings.Contains(string(page.raw), `id="src-`+sid+`"`) || !strings.Contains(page.header.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Fatalf("agent page: %d", page.status)
	}
	for _, path := range []string{base + "/" + sid + "/sync", base + "/" + sid + "/delete"} {
		if r := e.do("POST", path, "confirmed=1", form("cross-site")); r.status != http.StatusForbidden {
			t.Errorf("cross-site %s: %d", path, r.status)
		}
	}
	if count() != 1 {
		t.Fatal("a cross-site post removed the source")
	}
	if r := e.do("POST", base+"/"+sid+"/delete", "confirmed=1", form("same-origin")); r.status != http.StatusSeeOther || count() != 0 {
		t.Fatalf("same-origin remove: %d, %d sources", r.status, count())
	}
}
