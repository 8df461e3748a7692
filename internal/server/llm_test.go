package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/internal/agent/llm"
	"parley/internal/domain"
)

// fakeLLM is an OpenAI-compatible server on loopback that answers with
// the handler the test sets, and records what it was sent.
type fakeLLM struct {
	*httptest.Server
	mu       sync.Mutex
	requests []map[string]any
	answer   func(w http.ResponseWriter)
}

func newFakeLLM(t *testing.T) *fakeLLM {
	f := &fakeLLM{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		f.requests = append(f.requests, body)
		answer := f.answer
		f.mu.Unlock()
		answer(w)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeLLM) reply(content string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answer = func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		c, _ := json.Marshal(content)
		fmt.Fprintf(w, `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":%s}}]}`, c)
	}
}

func (f *fakeLLM) set(answer func(w http.ResponseWriter)) {
	f.mu.Lock()
	f.answer = answer
	f.mu.Unlock()
}

func (f *fakeLLM) last() map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests[len(f.requests)-1]
}

func TestLLMBackendThroughTheWidgetAPI(t *testing.T) {
	t.Parallel()
	fake := newFakeLLM(t)
	e := newEnv(t, envOptions{llm: &llm.Config{BaseURL: fake.URL + "/v1", Model: "test-model", MaxRetries: -1}, aiTimeout: 300 * time.Millisecond})
	conv, _ := e.start()

	fake.reply(`{"reply": "Suntem deschiși de la 9 la 17.", "quick_replies": ["Livrare", "Retur"]}`)
	r := e.chatText(conv, "opening hours today?", "ro")
	opts, _ := r.body["user_reply_options"].([]any)
	if r.str("response") != "Suntem deschiși de la 9 la 17." || len(opts) != 2 {
		t.Fatalf("LLM reply: %s", r.raw)
	}
	sent := fake.last()
	msgs := sent["messages"].([]any)
	system := msgs[0].(map[string]any)["content"].(string)
	if sent["model"] != "test-model" || !strings.Contains(system, "Romanian") || !strings.Contains(system, "We are open from 9 to 17.") {
		t.Fatalf("the model was not sent the language and the knowledge: %v", sent)
	}
	if last := msgs[len(msgs)-1].(map[string]any); last["role"] != "user" || last["content"] != "opening hours today?" {
		t.Fatalf("last message sent = %v", last)
	}

	// The next call carries the earlier turns.
	fake.reply("Da.")
	e.chatText(conv, "Și sâmbăta?", "ro")
	msgs = fake.last()["messages"].([]any)
	if len(msgs) != 4 || msgs[2].(map[string]any)["role"] != "assistant" {
		t.Fatalf("history not sent: %v", msgs)
	}

	// Failures: 502 on a backend error, 504 on a hang; the visitor's
	// message is stored either way and the conversation stays usable.
	fake.set(func(w http.ResponseWriter) { http.Error(w, `{"error":{"message":"secret upstream detail"}}`, 500) })
	fail := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "still there?"}, nil)
	wantError(t, fail, 502, "")
	if strings.Contains(string(fail.raw), "secret upstream detail") {
		t.Fatalf("backend text leaked: %s", fail.raw)
	}
	fake.set(func(w http.ResponseWriter) { time.Sleep(2 * time.Second) })
	wantError(t, e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "hello?"}, nil), 504, "")
	fake.reply("Back again.")
	if r := e.chatText(conv, "ok", "en"); r.str("response") != "Back again." {
		t.Fatalf("after failures: %s", r.raw)
	}
	var visitor []string
	for _, m := range e.messages(conv) {
		if m.Role == domain.RoleVisitor {
			visitor = append(visitor, m.Text)
		}
	}
	if strings.Join(visitor, "|") != "opening hours today?|Și sâmbăta?|still there?|hello?|ok" {
		t.Fatalf("visitor messages stored: %v", visitor)
	}
}

func TestAgentWithoutLLMUsesKnowledgeBase(t *testing.T) {
	t.Parallel()
	fake := newFakeLLM(t)
	fake.reply("from the LLM")
	// No instance LLM: only an agent that names one in its config uses it.
	// Its endpoint is a test server on loopback, which only an instance
	// with PARLEY_FETCH_ALLOW_PRIVATE calls (ssrf_test.go shows the rest).
	e := newEnv(t, envOptions{llm: &llm.Config{}, fetchAllowPrivate: true})
	conv, _ := e.start()
	if r := e.chatText(conv, "opening hours", "en"); r.str("response") != "We are open from 9 to 17." {
		t.Fatalf("plain agent: %s", r.raw)
	}
	_, key := e.newAgent(e.account.ID, "LLM bot", fmt.Sprintf(`{"llm":{"base_url":%q,"model":"m","api_key":"sk-agent"}}`, fake.URL+"/v1"))
	c2 := e.do("POST", "/api/widget/init", map[string]any{"key": key}, nil).str("conversation_id")
	r := e.do("POST", "/api/widget/chat", map[string]any{"key": key, "conversation_id": c2, "text": "hi"}, nil)
	if r.str("response") != "from the LLM" {
		t.Fatalf("agent with its own LLM: %s", r.raw)
	}
	// Its key is never shown: not to visitors, not in the management API.
	init := e.do("POST", "/api/widget/init", map[string]any{"key": key}, nil)
	agents := e.api("GET", "/api/v1/agents", nil)
	if strings.Contains(string(init.raw), "sk-agent") || strings.Contains(string(agents.raw), "sk-agent") || strings.Contains(string(init.raw), "base_url") {
		t.Fatalf("LLM settings leaked: %s / %s", init.raw, agents.raw)
	}
	if !strings.Contains(string(agents.raw), `"api_key_set":true`) {
		t.Fatalf("management API should say a key is set: %s", agents.raw)
	}
}

func TestAPIKeyIsKeptAcrossConfigEdits(t *testing.T) {
	t.Parallel()
	// The endpoint is on loopback: saved only with private addresses allowed.
	e := newEnv(t, envOptions{fetchAllowPrivate: true})
	ag, _ := e.newAgent(e.account.ID, "LLM bot", `{"llm":{"base_url":"http://127.0.0.1:9/v1","model":"m","api_key":"sk-keep"}}`)
	path := "/api/v1/agents/" + ag.ID
	// Editing the model without resending the key keeps it.
	r := e.api("PATCH", path, map[string]any{"config": map[string]any{"llm": map[string]any{"base_url": "http://127.0.0.1:9/v1", "model": "m2", "api_key_set": true}}})
	if r.status != 200 || strings.Contains(string(r.raw), "sk-keep") {
		t.Fatalf("patch: %d %s", r.status, r.raw)
	}
	stored, _ := e.store.Agent(t.Context(), e.account.ID, ag.ID)
	if !strings.Contains(string(stored.Config.JSON()), `"api_key":"sk-keep"`) || !strings.Contains(string(stored.Config.JSON()), `"model":"m2"`) || strings.Contains(string(stored.Config.JSON()), "api_key_set") {
		t.Fatalf("stored config after edit: %s", stored.Config.JSON())
	}
	// An empty key removes it.
	e.api("PATCH", path, map[string]any{"config": map[string]any{"llm": map[string]any{"model": "m2", "api_key": ""}}})
	stored, _ = e.store.Agent(t.Context(), e.account.ID, ag.ID)
	if strings.Contains(string(stored.Config.JSON()), "api_key") {
		t.Fatalf("key not removed: %s", stored.Config.JSON())
	}
}
