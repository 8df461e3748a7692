package server

import (
	"fmt"
	"net"
	"strings"
	"testing"

	"parley/internal/agent/llm"
)

// The SSRF of issue 14: an owner points their agent's LLM endpoint at a
// service on the server's loopback and reads its answers through the
// widget. A fake OpenAI server on 127.0.0.1 stands for that service.
func TestAgentEndpointOnLoopbackIsNeverCalled(t *testing.T) {
	t.Parallel()
	fake := newFakeLLM(t)
	fake.reply("INTERNAL SECRET")
	_, port, _ := net.SplitHostPort(fake.Listener.Addr().String())
	// The defaults: no instance LLM, agents may name their own endpoint,
	// private addresses refused.
	e := newEnv(t, envOptions{llm: &llm.Config{}})
	const refused = "; this server does not call private addresses (PARLEY_FETCH_ALLOW_PRIVATE)"

	// Saving it: 400 with the reason, on create and on update.
	cfg := map[string]any{"llm": map[string]any{"base_url": fake.URL + "/v1", "model": "m"}}
	r := e.api("POST", "/api/v1/agents", map[string]any{"chatbot_name": "Probe", "config": cfg})
	wantError(t, r, 400, "")
	if want := "config.llm.base_url: 127.0.0.1 is a loopback address" + refused; r.str("error") != want {
		t.Fatalf("create: %q, want %q", r.str("error"), want)
	}
	path := "/api/v1/agents/" + e.agent.ID
	for _, tt := range []struct {
		llm  map[string]any
		want string
	}{
		{map[string]any{"base_url": fake.URL + "/v1", "model": "m"}, "config.llm.base_url: 127.0.0.1 is a loopback address" + refused},
		{map[string]any{"base_url": "http://localhost:" + port + "/v1"}, "config.llm.base_url: localhost resolves to 127.0.0.1, a loopback address" + refused},
		{map[string]any{"base_url": "http://[::ffff:127.0.0.1]:" + port + "/v1"}, "config.llm.base_url: ::ffff:127.0.0.1 is a loopback address" + refused},
		{map[string]any{"base_url": "http://169.254.169.254/latest/meta-data/"}, "config.llm.base_url: 169.254.169.254 is a link-local address" + refused},
		{map[string]any{"provider": "ollama", "model": "llama3.2"}, "config.llm.provider: this provider's endpoint is http://localhost:11434/v1: localhost resolves to 127.0.0.1, a loopback address" + refused},
		{map[string]any{"base_url": "gopher://127.0.0.1:" + port + "/"}, `config.llm.base_url: scheme "gopher" is not allowed: use http or https`},
	} {
		r := e.api("PATCH", path, map[string]any{"config": map[string]any{"llm": tt.llm}})
		wantError(t, r, 400, "")
		if got := strings.Replace(r.str("error"), "resolves to ::1,", "resolves to 127.0.0.1,", 1); got != tt.want {
			t.Errorf("PATCH %v: %q, want %q", tt.llm, got, tt.want)
		}
	}
	if stored, _ := e.store.Agent(t.Context(), e.account.ID, e.agent.ID); strings.Contains(string(stored.Config.JSON()), "base_url") {
		t.Fatalf("a refused config was stored: %s", stored.Config.JSON())
	}

	// A config saved before the fix (an old database): the chat answers
	// the usual 502, whose text says nothing of where the endpoint led.
	for _, base := range []string{fake.URL + "/v1", "http://localhost:" + port + "/v1"} {
		_, key := e.newAgent(e.account.ID, "Old probe", fmt.Sprintf(`{"llm":{"base_url":%q,"model":"m"}}`, base))
		conv := e.do("POST", "/api/widget/init", map[string]any{"key": key}, nil).str("conversation_id")
		r := e.do("POST", "/api/widget/chat", map[string]any{"key": key, "conversation_id": conv, "text": "hi"}, nil)
		wantError(t, r, 502, "")
		if r.str("error") != "the AI agent backend is temporarily unavailable" {
			t.Errorf("%s: chat error %q", base, r.str("error"))
		}
	}
	fake.mu.Lock()
	reached := len(fake.requests)
	fake.mu.Unlock()
	if reached != 0 {
		t.Fatalf("%d requests reached the loopback server", reached)
	}
}

// PARLEY_FETCH_ALLOW_PRIVATE=true: the owner who runs the model beside
// Parley saves and uses it.
func TestAgentEndpointOnLoopbackAllowed(t *testing.T) {
	t.Parallel()
	fake := newFakeLLM(t)
	fake.reply("from the owner's own model")
	e := newEnv(t, envOptions{llm: &llm.Config{}, fetchAllowPrivate: true})
	r := e.api("PATCH", "/api/v1/agents/"+e.agent.ID, map[string]any{"config": map[string]any{"llm": map[string]any{"base_url": fake.URL + "/v1", "model": "m"}}})
	if r.status != 200 {
		t.Fatalf("PATCH: %d %s", r.status, r.raw)
	}
	conv, _ := e.start()
	if r := e.chatText(conv, "hi", "en"); r.str("response") != "from the owner's own model" {
		t.Fatalf("chat: %s", r.raw)
	}
}

// PARLEY_LLM_AGENT_ENDPOINTS=false: agents' endpoints are ignored, so
// there is nothing to refuse and nothing is called.
func TestAgentEndpointsOffIgnoresThem(t *testing.T) {
	t.Parallel()
	fake := newFakeLLM(t)
	fake.reply("INTERNAL SECRET")
	e := newEnv(t, envOptions{llm: &llm.Config{NoAgentEndpoints: true}})
	r := e.api("PATCH", "/api/v1/agents/"+e.agent.ID, map[string]any{"config": map[string]any{"llm": map[string]any{"base_url": fake.URL + "/v1", "model": "m"}}})
	if r.status != 200 {
		t.Fatalf("PATCH: %d %s", r.status, r.raw)
	}
	conv, _ := e.start()
	if r := e.chatText(conv, "opening hours", "en"); r.str("response") != "We are open from 9 to 17." {
		t.Fatalf("chat: %s", r.raw)
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if len(fake.requests) != 0 {
		t.Fatal("the agent's endpoint was called")
	}
}
