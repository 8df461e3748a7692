package main

import (
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
)

// A NUL character anywhere a client can put one is a 400, the same on
// SQLite and PostgreSQL (which cannot store it), through the dashboard's
// forms and query strings and the APIs' JSON and query strings.
func TestNULIsA400OnSQLite(t *testing.T) {
	t.Parallel()
	checkNUL(t, startOnTerminal(t, filepath.Join(t.TempDir(), "p.db"), map[string]string{"PARLEY_SIGNUP": "true"}))
}

func TestNULIsA400OnPostgres(t *testing.T) {
	t.Parallel()
	checkNUL(t, startOnTerminal(t, postgresURL(t), map[string]string{"PARLEY_SIGNUP": "true"}))
}

func checkNUL(t *testing.T, a *instance) {
	t.Helper()
	key, token := field(t, a.stdout.String(), "Widget key"), field(t, a.stdout.String(), "API token")
	form := func(path string, v url.Values) int {
		t.Helper()
		res, err := http.PostForm(a.base+path, v)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	status, init := post(t, a.base+"/api/widget/init", "", map[string]any{"key": key})
	if status != 200 {
		t.Fatalf("init: %d", status)
	}
	conv := init["conversation_id"].(string)
	for _, tt := range []struct {
		name   string
		status int
	}{
		{"sign-up name", form("/signup", url.Values{"email": {"nul@example.com"}, "name": {"A\x00B"}, "password": {"a long secret 1"}})},
		{"sign-up email", form("/signup", url.Values{"email": {"nul\x00@example.com"}, "name": {"A"}, "password": {"a long secret 1"}})},
		{"sign-in email", form("/signin", url.Values{"email": {"demo\x00@example.com"}, "password": {"whatever"}})},
		{"sign-in password", form("/signin", url.Values{"email": {"demo@example.com"}, "password": {"pass\x00word"}})},
		{"init page_url", first(post(t, a.base+"/api/widget/init", "", map[string]any{"key": key, "page_url": "https://x.example/\x00"}))},
		{"chat text", first(post(t, a.base+"/api/widget/chat", "", map[string]any{"key": key, "conversation_id": conv, "text": "hi\x00"}))},
		{"poll key", first(get(t, a.base+"/api/widget/poll?key=wk_%00&conversation_id="+conv, ""))},
		{"agent name", first(post(t, a.base+"/api/v1/agents", token, map[string]any{"chatbot_name": "B\x00t"}))},
		{"agent config", first(post(t, a.base+"/api/v1/agents", token, map[string]any{"chatbot_name": "Bot", "config": map[string]any{"greeting": "\x00"}}))},
		{"operator reply", first(post(t, a.base+"/api/v1/conversations/"+conv+"/messages", token, map[string]any{"text": "hi\x00"}))},
		{"conversation id", first(get(t, a.base+"/api/v1/conversations/cv_%00", token))},
	} {
		if tt.status != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", tt.name, tt.status)
		}
	}
	// Nothing was stored: no account for the refused sign-up, no message.
	if status, _ := form2(t, a.base+"/signin", url.Values{"email": {"nul@example.com"}, "password": {"a long secret 1"}}); status == http.StatusSeeOther {
		t.Error("the refused sign-up made an account")
	}
	if status, detail := get(t, a.base+"/api/v1/conversations/"+conv, token); status != 200 || len(detail["messages"].([]any)) != 0 {
		t.Errorf("conversation after refused messages: %d %v", status, detail)
	}
	if strings.Contains(a.stdout.String(), "\x00") {
		t.Error("a NUL reached the output")
	}
}

func first(status int, _ map[string]any) int { return status }

// form2 posts a form without following the redirect.
func form2(t *testing.T, u string, v url.Values) (int, string) {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.PostForm(u, v)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode, res.Header.Get("Location")
}
