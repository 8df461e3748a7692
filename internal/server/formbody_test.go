package server

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
)

// Every dashboard request's body is read up to 16 KiB, also by handlers
// that do not bound it themselves; the agent forms that need more (a
// document of 100,000 characters here) still get it.
func TestDashboardBodiesAreBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	acc, _ := e.newAccount("bounds@example.com", domain.Limits{MonthlyConversations: 10})
	ag, _ := e.newAgent(acc.ID, "Bounds", `{}`)
	ctx := context.Background()
	u, err := e.store.UserByEmail(ctx, "bounds@example.com")
	if err != nil {
		t.Fatal(err)
	}
	token := secret.ID("", 32)
	if err := e.store.CreateSession(ctx, u.ID, secret.HashToken(token), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	form := map[string]string{"Cookie": "parley_session=" + token, "Content-Type": "application/x-www-form-urlencoded"}
	pad := strings.Repeat("x", 17<<10)

	// The language switch parses its form without asking for errors: past
	// 16 KiB it gets no fields, so it sets no cookie.
	r := e.do("POST", "/language", url.Values{"lang": {"ro"}, "back": {"/inbox"}, "pad": {pad}}.Encode(), form)
	if strings.Contains(r.header.Get("Set-Cookie"), "parley_lang=ro") {
		t.Errorf("/language read a body of 17 KiB: %d %q", r.status, r.header.Get("Set-Cookie"))
	}
	// Nor does a token get made from a padded form.
	e.do("POST", "/team/tokens", url.Values{"name": {"padded"}, "pad": {pad}}.Encode(), form)
	if toks, _ := e.store.APITokens(ctx, acc.ID); len(toks) != 1 { // the harness's own
		t.Errorf("%d API tokens after a padded form, want 1", len(toks))
	}
	// A document of 100,000 characters is an agent form's larger need.
	doc := url.Values{"kind": {"document"}, "lang": {"en"}, "title": {"Big"}, "text": {strings.Repeat("Parley answers. ", 6250)}}
	if r := e.do("POST", "/agents/"+ag.ID+"/knowledge", doc.Encode(), form); r.status != 303 {
		t.Fatalf("a knowledge document of 100,000 characters: %d %s", r.status, r.raw)
	}
}
