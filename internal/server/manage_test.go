package server

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/internal/domain"
)

func TestManagementAuth(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	for _, h := range []map[string]string{
		nil,
		{"Authorization": "Bearer"},
		{"Authorization": "Bearer pt_wrong"},
		{"Authorization": "Basic dXNlcjpwYXNz"},
		{"Authorization": e.token}, // no scheme
	} {
		r := e.do("GET", "/api/v1/agents", nil, h)
		wantError(t, r, 401, "")
		if r.header.Get("WWW-Authenticate") == "" {
			t.Fatal("401 without WWW-Authenticate")
		}
	}
	if r := e.do("GET", "/api/v1/agents", nil, map[string]string{"Authorization": "bearer " + e.token}); r.status != 200 {
		t.Fatalf("lower-case scheme: %d", r.status)
	}
}

func TestAgentsAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	r := e.api("POST", "/api/v1/agents", map[string]any{
		"chatbot_name": "  Sales  ", "config": map[string]any{"color": "#000000"},
		"knowledge": []map[string]any{{"question": "Do you ship to Moldova?", "answer": "Yes, in 3 days.", "lang": "en"}},
	})
	if r.status != 201 || r.str("chatbot_name") != "Sales" || !strings.HasPrefix(r.str("widget_key"), "wk_") || r.str("id") == "" {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	id, key := r.str("id"), r.str("widget_key")
	if r.header.Get("Location") != "/api/v1/agents/"+id {
		t.Fatalf("Location = %q", r.header.Get("Location"))
	}
	// The new key works at once and the agent answers from its knowledge.
	init := e.do("POST", "/api/widget/init", map[string]any{"key": key}, nil)
	chat := e.do("POST", "/api/widget/chat", map[string]any{"key": key, "conversation_id": init.str("conversation_id"), "text": "do you ship to moldova"}, nil)
	if chat.str("response") != "Yes, in 3 days." {
		t.Fatalf("new agent's answer: %s", chat.raw)
	}
	// Changing the knowledge takes effect once the index is rebuilt, which
	// the change starts at once (messages meanwhile get the old answers).
	<-e.builds // the first message's
	if r := e.api("PATCH", "/api/v1/agents/"+id, map[string]any{"knowledge": []map[string]any{{"question": "Do you ship to Moldova?", "answer": "No longer."}}}); r.status != 200 {
		t.Fatalf("patch knowledge: %d %s", r.status, r.raw)
	}
	<-e.builds
	chat = e.do("POST", "/api/widget/chat", map[string]any{"key": key, "conversation_id": init.str("conversation_id"), "text": "do you ship to moldova"}, nil)
	if chat.str("response") != "No longer." {
		t.Fatalf("answer after the knowledge changed: %s", chat.raw)
	}

	list := e.api("GET", "/api/v1/agents", nil)
	if agents, _ := list.body["agents"].([]any); list.status != 200 || len(agents) != 2 {
		t.Fatalf("list: %s", list.raw)
	}
	got := e.api("GET", "/api/v1/agents/"+id, nil)
	if got.status != 200 || len(got.body["widget_keys"].([]any)) != 1 || len(got.body["knowledge"].([]any)) != 1 {
		t.Fatalf("get: %s", got.raw)
	}
	p := e.api("PATCH", "/api/v1/agents/"+id, map[string]any{"chatbot_name": "Sales bot", "config": map[string]any{"greeting": "Salut"}})
	if p.status != 200 || p.str("chatbot_name") != "Sales bot" || p.body["config"].(map[string]any)["greeting"] != "Salut" {
		t.Fatalf("patch: %s", p.raw)
	}

	for _, tt := range []struct {
		name string
		body string
	}{
		{"no name", `{}`},
		{"blank name", `{"chatbot_name":"  "}`},
		{"long name", fmt.Sprintf(`{"chatbot_name":%q}`, strings.Repeat("n", 101))},
		{"config not an object", `{"chatbot_name":"x","config":[1]}`},
		{"knowledge without answer", `{"chatbot_name":"x","knowledge":[{"question":"q"}]}`},
		{"knowledge bad lang", `{"chatbot_name":"x","knowledge":[{"question":"q","answer":"a","lang":"de"}]}`},
		{"unknown field", `{"chatbot_name":"x","avatar":"y"}`},
	} {
		wantError(t, e.api("POST", "/api/v1/agents", tt.body), 400, "")
	}
	wantError(t, e.api("GET", "/api/v1/agents/ag_missing", nil), 404, "")
	wantError(t, e.api("PATCH", "/api/v1/agents/ag_missing", `{"chatbot_name":"x"}`), 404, "")
}

func TestKeysAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	k := e.api("POST", "/api/v1/agents/"+e.agent.ID+"/keys", nil)
	if k.status != 201 || !strings.HasPrefix(k.str("key"), "wk_") || k.body["active"] != true {
		t.Fatalf("new key: %d %s", k.status, k.raw)
	}
	// A new key is a rotation: the old key is refused at once, the new
	// one works.
	wantError(t, e.do("POST", "/api/widget/init", map[string]any{"key": e.key}, nil), 403, "")
	if r := e.do("POST", "/api/widget/init", map[string]any{"key": k.str("key")}, nil); r.status != 200 {
		t.Fatalf("new key refused: %d", r.status)
	}
	r := e.api("GET", "/api/v1/agents/"+e.agent.ID, nil)
	if r.str("widget_key") != k.str("key") {
		t.Fatalf("widget_key should be the newest active key: %s", r.raw)
	}
	if keys, _ := r.body["widget_keys"].([]any); len(keys) != 2 || keys[0].(map[string]any)["active"] != false || keys[1].(map[string]any)["active"] != true {
		t.Fatalf("widget_keys after a new key: %s", r.raw)
	}
	// An owner who needs the old key during the switch reactivates it;
	// both then work, and the embed key stays the new one.
	if r := e.api("PATCH", "/api/v1/keys/"+e.key, map[string]any{"active": true}); r.status != 200 || r.body["active"] != true {
		t.Fatalf("reactivate: %d %s", r.status, r.raw)
	}
	for _, key := range []string{e.key, k.str("key")} {
		if r := e.do("POST", "/api/widget/init", map[string]any{"key": key}, nil); r.status != 200 {
			t.Fatalf("key %s refused after reactivating the old one: %d", key, r.status)
		}
	}
	if r := e.api("GET", "/api/v1/agents/"+e.agent.ID, nil); r.str("widget_key") != k.str("key") {
		t.Fatalf("widget_key after reactivating the old key: %s", r.raw)
	}
	// Deactivating a key refuses it at once.
	if r := e.api("PATCH", "/api/v1/keys/"+e.key, map[string]any{"active": false}); r.status != 200 || r.body["active"] != false {
		t.Fatalf("deactivate: %d %s", r.status, r.raw)
	}
	wantError(t, e.do("POST", "/api/widget/init", map[string]any{"key": e.key}, nil), 403, "")
	wantError(t, e.api("PATCH", "/api/v1/keys/"+e.key, `{}`), 400, "")
	wantError(t, e.api("PATCH", "/api/v1/keys/wk_missing", map[string]any{"active": false}), 404, "")
}

func TestAccountsAreIsolated(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	conv, _ := e.start()
	_, otherToken := e.newAccount("other@example.com", domain.DefaultLimits)
	other := func(method, path string, body any) response {
		return e.do(method, path, body, map[string]string{"Authorization": "Bearer " + otherToken})
	}
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"GET", "/api/v1/agents/" + e.agent.ID, nil},
		{"PATCH", "/api/v1/agents/" + e.agent.ID, `{"chatbot_name":"mine"}`},
		{"POST", "/api/v1/agents/" + e.agent.ID + "/keys", nil},
		{"PATCH", "/api/v1/keys/" + e.key, `{"active":false}`},
		{"GET", "/api/v1/conversations/" + conv, nil},
		{"POST", "/api/v1/conversations/" + conv + "/takeover", nil},
		{"POST", "/api/v1/conversations/" + conv + "/release", nil},
		{"POST", "/api/v1/conversations/" + conv + "/messages", `{"text":"hi"}`},
	} {
		wantError(t, other(c.method, c.path, c.body), 404, "")
	}
	if r := other("GET", "/api/v1/conversations", nil); len(r.body["conversations"].([]any)) != 0 {
		t.Fatalf("another account sees conversations: %s", r.raw)
	}
	if r := other("GET", "/api/v1/agents", nil); len(r.body["agents"].([]any)) != 0 {
		t.Fatalf("another account sees agents: %s", r.raw)
	}
	// Nothing changed for the owner.
	if c, _ := e.store.Conversation(t.Context(), conv); c.Mode != domain.ModeAI || len(e.messages(conv)) != 0 {
		t.Fatalf("another account changed the conversation: %+v", c)
	}
}

// tickingClock returns a clock that moves one second per reading, so that
// creation times are distinct and "newest first" is well defined.
func tickingClock() func() time.Time {
	var mu sync.Mutex
	t := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Second)
		return t
	}
}

func TestConversationsAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{clock: tickingClock()})
	second, secondKey := e.newAgent(e.account.ID, "Second", `{}`)
	var ids []string
	for i := range 7 {
		key := e.key
		if i%2 == 1 {
			key = secondKey
		}
		r := e.do("POST", "/api/widget/init", map[string]any{"key": key, "page_url": fmt.Sprintf("https://s.example/%d", i)}, nil)
		ids = append(ids, r.str("conversation_id"))
	}
	e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": ids[0], "text": "opening hours"}, nil)
	e.api("POST", "/api/v1/conversations/"+ids[2]+"/takeover", nil)

	// Pages of 3, newest first, each conversation exactly once.
	var seen []string
	cursor := ""
	for range 10 {
		r := e.api("GET", "/api/v1/conversations?limit=3&cursor="+cursor, nil)
		if r.status != 200 {
			t.Fatalf("list: %d %s", r.status, r.raw)
		}
		for _, c := range r.body["conversations"].([]any) {
			seen = append(seen, c.(map[string]any)["id"].(string))
		}
		if cursor = r.str("next_cursor"); cursor == "" {
			break
		}
	}
	if len(seen) != 7 {
		t.Fatalf("paged through %d conversations, want 7: %v", len(seen), seen)
	}
	for i, id := range seen {
		if id != ids[6-i] {
			t.Fatalf("order: got %v, want newest first %v", seen, ids)
		}
	}
	count := func(query string) int {
		r := e.api("GET", "/api/v1/conversations?"+query, nil)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", query, r.status, r.raw)
		}
		return len(r.body["conversations"].([]any))
	}
	if n := count("agent_id=" + second.ID); n != 3 {
		t.Fatalf("agent filter: %d, want 3", n)
	}
	if n := count("mode=human"); n != 1 {
		t.Fatalf("mode filter: %d, want 1", n)
	}
	if n := count("mode=ai&agent_id=" + e.agent.ID); n != 3 {
		t.Fatalf("combined filters: %d, want 3", n)
	}
	for _, bad := range []string{"mode=robot", "limit=0", "limit=101", "limit=x", "cursor=garbage!"} {
		wantError(t, e.api("GET", "/api/v1/conversations?"+bad, nil), 400, "")
	}
	if r := e.api("GET", "/api/v1/conversations?sort=newest", nil); r.status != 400 || r.str("error") != "sort must be created or activity" {
		t.Fatalf("sort=newest: %d %s", r.status, r.raw)
	}

	// sort=activity: the chat moved the oldest conversation to the front;
	// the takeover did not move ids[2]. created is the default's name.
	order := func(query string) ([]string, string) {
		t.Helper()
		r := e.api("GET", "/api/v1/conversations?"+query, nil)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", query, r.status, r.raw)
		}
		var out []string
		for _, c := range r.body["conversations"].([]any) {
			out = append(out, c.(map[string]any)["id"].(string))
		}
		return out, r.str("next_cursor")
	}
	byActivity, next := order("sort=activity&limit=4")
	if want := []string{ids[0], ids[6], ids[5], ids[4]}; !slices.Equal(byActivity, want) {
		t.Fatalf("sort=activity: %v, want %v", byActivity, want)
	}
	if rest, _ := order("sort=activity&limit=4&cursor=" + next); !slices.Equal(rest, []string{ids[3], ids[2], ids[1]}) {
		t.Fatalf("sort=activity, page 2: %v", rest)
	}
	if byStart, _ := order("sort=created&limit=1"); byStart[0] != ids[6] {
		t.Fatalf("sort=created: %v", byStart)
	}
	if r := e.api("GET", "/api/v1/conversations?cursor="+next, nil); r.status != 400 || r.str("error") != "cursor is not valid" {
		t.Fatalf("an activity cursor without sort=activity: %d %s", r.status, r.raw)
	}

	d := e.api("GET", "/api/v1/conversations/"+ids[0], nil)
	msgs, _ := d.body["messages"].([]any)
	if d.status != 200 || d.str("mode") != "ai" || d.str("page_url") != "https://s.example/0" || len(msgs) != 2 {
		t.Fatalf("detail: %s", d.raw)
	}
	if msgs[0].(map[string]any)["role"] != "visitor" || msgs[1].(map[string]any)["role"] != "ai" {
		t.Fatalf("roles: %v", msgs)
	}
	list := e.api("GET", "/api/v1/conversations?agent_id="+e.agent.ID+"&limit=100", nil)
	last := list.body["conversations"].([]any)[3].(map[string]any) // ids[0], the oldest of agent one
	if last["id"] != ids[0] || last["last_message"] != "We are open from 9 to 17." || last["last_message_at"] == nil ||
		last["last_activity_at"] != last["last_message_at"] || last["waiting_since"] != nil {
		t.Fatalf("summary: %v", last)
	}
	wantError(t, e.api("GET", "/api/v1/conversations/cv_missing", nil), 404, "")
}

func TestOperatorReplyTakesOver(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	conv, _ := e.start()
	r := e.api("POST", "/api/v1/conversations/"+conv+"/messages", map[string]any{"text": "Hello from a person"})
	if r.status != 201 || r.str("role") != "operator" || r.str("operator_name") != "Ana" {
		t.Fatalf("operator message: %d %s", r.status, r.raw)
	}
	if c := e.api("GET", "/api/v1/conversations/"+conv, nil); c.str("mode") != "human" {
		t.Fatalf("mode after operator reply: %s", c.raw)
	}
	// Takeover twice: the second changes nothing.
	if r := e.api("POST", "/api/v1/conversations/"+conv+"/takeover", nil); r.body["changed"] != false {
		t.Fatalf("second takeover: %s", r.raw)
	}
	wantError(t, e.api("POST", "/api/v1/conversations/"+conv+"/messages", `{"text":"  "}`), 400, "")
	wantError(t, e.api("POST", "/api/v1/conversations/"+conv+"/messages", fmt.Sprintf(`{"text":%q}`, strings.Repeat("x", 2001))), 400, "")
	wantError(t, e.api("POST", "/api/v1/conversations/"+conv+"/messages", `{}`), 400, "")
}

func TestUsageDefaults(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{limits: &domain.DefaultLimits})
	e.start()
	u := e.api("GET", "/api/v1/usage", nil)
	if u.status != 200 || u.body["allowance"] != 100.0 || u.body["conversations"] != 1.0 || u.body["blocked"] != false ||
		u.body["overage_cents"] != 0.0 || u.body["spend_cap_cents"] != 0.0 || len(u.str("period")) != 7 {
		t.Fatalf("usage: %s", u.raw)
	}
}
