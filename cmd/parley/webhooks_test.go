package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The program as started wires webhooks end to end: an endpoint
// registered through the API receives the events of a real widget chat,
// signed, from the job queue; the list hides the secret, another
// account's endpoint is 404. On both stores.
func TestServeDeliversWebhooks(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		checkWebhooks(t, filepath.Join(t.TempDir(), "parley.db"))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		checkWebhooks(t, postgresURL(t))
	})
}

func newAccountToken(t *testing.T, db, email string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"account", "create", "--db", db, "--email", email,
		"--password", "correct-horse-battery-42"}, func(string) string { return "" }, nil, &out, &errb); code != 0 {
		t.Fatalf("account create: exit %d: %s", code, errb.String())
	}
	var created map[string]string
	if err := json.Unmarshal(out.Bytes(), &created); err != nil {
		t.Fatal(err)
	}
	return created["api_token"]
}

func checkWebhooks(t *testing.T, db string) {
	type hit struct {
		sig  string
		body []byte
	}
	var mu sync.Mutex
	var hits []hit
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		hits = append(hits, hit{r.Header.Get("Parley-Signature"), b})
		mu.Unlock()
	}))
	defer rcv.Close()

	token := newAccountToken(t, db, "hooks@example.com")
	other := newAccountToken(t, db, "other@example.com")
	// The receiver is on 127.0.0.1, which the guard refuses unless lifted.
	a := start(t, db, map[string]string{"PARLEY_DEMO": "false", "PARLEY_FETCH_ALLOW_PRIVATE": "true"})

	status, wh := post(t, a.base+"/api/v1/webhooks", token, map[string]any{"url": rcv.URL + "/in", "events": []string{"conversation.started", "message.created"}})
	if status != 201 || wh["secret"] == nil {
		t.Fatalf("create webhook: %d %v", status, wh)
	}
	id, secret := wh["id"].(string), wh["secret"].(string)
	if status, body := post(t, a.base+"/api/v1/webhooks", token, map[string]any{"url": rcv.URL, "events": []string{"nope"}}); status != 400 {
		t.Fatalf("unknown event: %d %v", status, body)
	}
	_, list := get(t, a.base+"/api/v1/webhooks", token)
	hooks := list["webhooks"].([]any)
	if len(hooks) != 1 || hooks[0].(map[string]any)["secret"] != nil {
		t.Fatalf("list: %v", list)
	}
	if status, one := get(t, a.base+"/api/v1/webhooks/"+id, token); status != 200 || one["secret"] != secret {
		t.Fatalf("get: %d %v", status, one)
	}
	if status, _ := get(t, a.base+"/api/v1/webhooks/"+id, other); status != 404 {
		t.Fatalf("another account's get: %d", status)
	}
	if status, _ := get(t, a.base+"/api/v1/webhooks/"+id+"/deliveries", other); status != 404 {
		t.Fatalf("another account's deliveries: %d", status)
	}

	_, agent := post(t, a.base+"/api/v1/agents", token, map[string]any{"chatbot_name": "Hooks"})
	key := agent["widget_key"].(string)
	_, init := post(t, a.base+"/api/widget/init", "", map[string]any{"key": key})
	conv := init["conversation_id"].(string)
	if status, reply := post(t, a.base+"/api/widget/chat", "", map[string]any{"key": key, "conversation_id": conv, "text": "hello"}); status != 200 {
		t.Fatalf("chat: %d %v", status, reply)
	}
	// The SQLite queue polls about once a second; generous for a loaded
	// machine, not a timing assertion.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		n := len(hits)
		mu.Unlock()
		if n >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("got %d deliveries\nlogs:\n%s", n, a.logs.String())
		}
	}
	mu.Lock()
	defer mu.Unlock()
	var got []string
	for _, h := range hits {
		ts, v1, _ := strings.Cut(strings.TrimPrefix(h.sig, "t="), ",v1=")
		m := hmac.New(sha256.New, []byte(secret))
		m.Write([]byte(ts + "." + string(h.body)))
		if hex.EncodeToString(m.Sum(nil)) != v1 {
			t.Fatalf("signature %q does not verify", h.sig)
		}
		var ev struct {
			Type string         `json:"type"`
			Data map[string]any `json:"data"`
		}
		json.Unmarshal(h.body, &ev)
		if ev.Data["conversation_id"] != conv {
			t.Fatalf("event of another conversation: %s", h.body)
		}
		if r, ok := ev.Data["role"].(string); ok {
			ev.Type += ":" + r
		}
		got = append(got, ev.Type)
	}
	if strings.Join(got, " ") != "conversation.started message.created:visitor message.created:ai" {
		t.Fatalf("events: %v", got)
	}
	req, _ := http.NewRequest("DELETE", a.base+"/api/v1/webhooks/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if status, _ := send(t, req); status != 204 {
		t.Fatalf("delete: %d", status)
	}
}
