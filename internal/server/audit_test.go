package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

type auditJSON struct {
	Entries []struct {
		ID        int64     `json:"id"`
		At        time.Time `json:"at"`
		Actor     string    `json:"actor"`
		ActorType string    `json:"actor_type"`
		ActorID   string    `json:"actor_id"`
		IP        string    `json:"ip"`
		Action    string    `json:"action"`
		Target    string    `json:"target"`
	} `json:"entries"`
	NextBefore int64 `json:"next_before"`
}

func (e *env) audit(query, token string) (auditJSON, response) {
	e.t.Helper()
	r := e.do("GET", "/api/v1/audit"+query, nil, map[string]string{"Authorization": "Bearer " + token})
	var out auditJSON
	if r.status == http.StatusOK {
		if err := json.Unmarshal(r.raw, &out); err != nil {
			e.t.Fatalf("audit body %s: %v", r.raw, err)
		}
	}
	return out, r
}

// A takeover in the dashboard and one through the API both reach the log,
// each with its actor (the user's email, the token's name) and address;
// so do a release, an operator reply and a key rotation. The log reads
// newest first, in pages, filtered by action, and another account sees
// none of it.
func TestAuditLog(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	owner, err := e.store.UserByEmail(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	session := secret.ID("", 32)
	if err := e.store.CreateSession(ctx, owner.ID, secret.HashToken(session), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	form := map[string]string{"Cookie": "parley_session=" + session, "Sec-Fetch-Site": "same-origin",
		"Content-Type": "application/x-www-form-urlencoded", "remote": "198.51.100.7:4000"}

	dashConv, _ := e.start()
	apiConv, _ := e.start()
	if r := e.do("POST", "/conversations/"+dashConv+"/takeover", "", form); r.status != http.StatusSeeOther {
		t.Fatalf("dashboard takeover: %d %s", r.status, r.raw)
	}
	if r := e.api("POST", "/api/v1/conversations/"+apiConv+"/takeover", nil); r.status != 200 {
		t.Fatalf("API takeover: %d %s", r.status, r.raw)
	}
	if r := e.api("POST", "/api/v1/conversations/"+apiConv+"/messages", map[string]any{"text": "Hello, Ana here"}); r.status != 201 && r.status != 200 {
		t.Fatalf("API reply: %d %s", r.status, r.raw)
	}
	if r := e.api("POST", "/api/v1/conversations/"+apiConv+"/release", nil); r.status != 200 {
		t.Fatalf("API release: %d %s", r.status, r.raw)
	}
	if r := e.do("POST", "/agents/"+e.agent.ID+"/keys", "", form); r.status != http.StatusSeeOther {
		t.Fatalf("dashboard key rotation: %d %s", r.status, r.raw)
	}

	got, r := e.audit("", e.token)
	if r.status != 200 {
		t.Fatalf("GET /api/v1/audit: %d %s", r.status, r.raw)
	}
	type row struct{ action, target, actor, actorType, ip string }
	want := []row{
		{"key.rotate", "", "owner@example.com", "user", "198.51.100.7"},
		{"conversation.release", "conversation:" + apiConv, "test", "api_token", "192.0.2.1"},
		{"conversation.reply", "conversation:" + apiConv, "test", "api_token", "192.0.2.1"},
		{"conversation.takeover", "conversation:" + apiConv, "test", "api_token", "192.0.2.1"},
		{"conversation.takeover", "conversation:" + dashConv, "owner@example.com", "user", "198.51.100.7"},
	}
	if len(got.Entries) != len(want) || got.NextBefore != 0 {
		t.Fatalf("entries %s, want %d and no next page", r.raw, len(want))
	}
	for i, w := range want {
		g := got.Entries[i]
		if g.Action != w.action || (w.target != "" && g.Target != w.target) || g.Actor != w.actor || g.ActorType != w.actorType || g.IP != w.ip || g.At.IsZero() {
			t.Errorf("entry %d: %+v, want %+v", i, g, w)
		}
		if i > 0 && g.ID >= got.Entries[i-1].ID {
			t.Errorf("entry %d's id %d is not below the one before (%d): not newest first", i, g.ID, got.Entries[i-1].ID)
		}
	}
	if g := got.Entries[0]; g.ActorID != owner.ID || len(g.Target) < 5 || g.Target[:4] != "key:" {
		t.Errorf("key rotation %+v", g)
	}

	// Pages of two, then the filter.
	var paged []int64
	query := "?limit=2"
	for range 5 {
		p, r := e.audit(query, e.token)
		if r.status != 200 || len(p.Entries) > 2 {
			t.Fatalf("page %s: %d %s", query, r.status, r.raw)
		}
		for _, en := range p.Entries {
			paged = append(paged, en.ID)
		}
		if p.NextBefore == 0 {
			break
		}
		query = fmt.Sprintf("?limit=2&before=%d", p.NextBefore)
	}
	if len(paged) != len(want) || paged[0] != got.Entries[0].ID || paged[len(paged)-1] != got.Entries[len(want)-1].ID {
		t.Errorf("paged ids %v, want those of %s", paged, r.raw)
	}
	takeovers, _ := e.audit("?action=conversation.takeover", e.token)
	if len(takeovers.Entries) != 2 {
		t.Errorf("takeovers only: %+v", takeovers.Entries)
	}
	for _, bad := range []string{"?limit=0", "?limit=201", "?limit=x", "?before=0", "?before=abc"} {
		if _, r := e.audit(bad, e.token); r.status != http.StatusBadRequest || r.str("error") == "" {
			t.Errorf("%s: %d %s, want 400 with an error", bad, r.status, r.raw)
		}
	}

	// Another account sees an empty log, not this one's.
	_, otherToken := e.newAccount("other@example.com", domain.Limits{MonthlyConversations: 10})
	other, r := e.audit("", otherToken)
	if r.status != 200 || len(other.Entries) != 0 || string(r.raw) == "" {
		t.Errorf("another account's log: %d %s", r.status, r.raw)
	}
	if _, r := e.audit("", "not-a-token"); r.status != http.StatusUnauthorized {
		t.Errorf("a bad token: %d", r.status)
	}
}

// The dashboard's audit log page shows the owner the account's entries
// (the sign-in among them) in their language, pages through them, and is
// refused to an operator.
func TestDashboardAuditLog(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	owner, err := e.store.UserByEmail(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.SetPassword(ctx, owner.ID, mustHash(t, "correct horse battery")); err != nil {
		t.Fatal(err)
	}
	signin := func(password string) response {
		return e.do("POST", "/signin", "email=owner%40example.com&password="+password,
			map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "same-origin", "remote": "203.0.113.9:1"})
	}
	if r := signin("wrong+password+here"); r.status != http.StatusUnauthorized {
		t.Fatalf("a wrong password: %d", r.status)
	}
	r := signin("correct+horse+battery")
	if r.status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d %s", r.status, r.raw)
	}
	cookie := strings.Split(r.header.Get("Set-Cookie"), ";")[0]
	conv, _ := e.start()
	e.api("POST", "/api/v1/conversations/"+conv+"/takeover", nil)

	page := e.do("GET", "/audit", nil, map[string]string{"Cookie": cookie + "; parley_lang=ro"})
	body := string(page.raw)
	if page.status != 200 || !strings.Contains(body, "Jurnal de audit") {
		t.Fatalf("audit page: %d %s", page.status, body)
	}
	for _, want := range []string{`data-action="conversation.takeover"`, `data-action="account.signin"`, `data-action="account.signin_failed"`, "conversation:" + conv, "203.0.113.9"} {
		if !strings.Contains(body, want) {
			t.Errorf("audit page lacks %q", want)
		}
	}
	if strings.Index(body, `data-action="conversation.takeover"`) > strings.Index(body, `data-action="account.signin"`) {
		t.Error("the takeover, the newest, is not listed first")
	}
	filtered := e.do("GET", "/audit?action=account.signin", nil, map[string]string{"Cookie": cookie})
	if fb := string(filtered.raw); filtered.status != 200 || strings.Contains(fb, `data-action="conversation.takeover"`) || !strings.Contains(fb, `data-action="account.signin"`) {
		t.Errorf("filtered page: %d", filtered.status)
	}
	if r := e.do("GET", "/audit?before=x", nil, map[string]string{"Cookie": cookie}); r.status != http.StatusBadRequest {
		t.Errorf("a bad before: %d", r.status)
	}

	op, err := e.store.CreateUser(ctx, store.NewUser{AccountID: e.account.ID, Email: "op@example.com", Name: "Op", PasswordHash: "x", Role: domain.UserOperator})
	if err != nil {
		t.Fatal(err)
	}
	opSession := secret.ID("", 32)
	if err := e.store.CreateSession(ctx, op.ID, secret.HashToken(opSession), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	r = e.do("GET", "/audit", nil, map[string]string{"Cookie": "parley_session=" + opSession})
	if r.status != http.StatusForbidden || strings.Contains(string(r.raw), "conversation:"+conv) {
		t.Errorf("an operator's audit page: %d", r.status)
	}
	if inbox := e.do("GET", "/inbox", nil, map[string]string{"Cookie": "parley_session=" + opSession}); strings.Contains(string(inbox.raw), `href="/audit"`) {
		t.Error("an operator's menu links to the audit log")
	}
}

func mustHash(t *testing.T, password string) string {
	t.Helper()
	h, err := secret.HashPassword(password)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
