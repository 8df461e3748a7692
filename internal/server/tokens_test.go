package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"parley/internal/agent/llm"
)

// An LLM agent's replies reach the visitor without their citation markers,
// and what each cost in tokens shows in the management API: on the AI
// message, summed on the conversation, and in the month's usage. A
// conversation with the built-in knowledge-base agent shows zero.
func TestTokenUsageThroughTheAPIs(t *testing.T) {
	t.Parallel()
	fake := newFakeLLM(t)
	e := newEnv(t, envOptions{llm: &llm.Config{BaseURL: fake.URL + "/v1", Model: "test-model", MaxRetries: -1}})
	usage := func(content string, prompt, completion int) {
		fake.set(func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			c, _ := json.Marshal(content)
			fmt.Fprintf(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":%s}}],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`,
				c, prompt, completion, prompt+completion)
		})
	}
	conv, _ := e.start()
	usage(`{"reply": "We are open from 9 to 17 [1]."}`, 900, 12)
	if r := e.chatText(conv, "opening hours?", "en"); r.str("response") != "We are open from 9 to 17." || r.body["sources"] != nil {
		t.Fatalf("chat: %s", r.raw)
	}
	if system := fake.last()["messages"].([]any)[0].(map[string]any)["content"].(string); !strings.Contains(system, "<<<PASSAGE 1\nQ: What are your opening hours?") {
		t.Fatalf("the passage was not numbered in the prompt:\n%s", system)
	}
	usage(`{"reply": "Shipping is free."}`, 1000, 8)
	e.chatText(conv, "shipping?", "en")

	d := e.api("GET", "/api/v1/conversations/"+conv+"?limit=2", nil)
	if d.status != 200 || d.body["prompt_tokens"] != 1900.0 || d.body["completion_tokens"] != 20.0 {
		t.Fatalf("conversation: %s", d.raw)
	}
	msgs := d.body["messages"].([]any)
	visitor, ai := msgs[0].(map[string]any), msgs[1].(map[string]any)
	if _, ok := visitor["prompt_tokens"]; ok || ai["prompt_tokens"] != 1000.0 || ai["completion_tokens"] != 8.0 {
		t.Fatalf("messages: %v", msgs)
	}
	if u := e.api("GET", "/api/v1/usage", nil); u.body["prompt_tokens"] != 1900.0 || u.body["completion_tokens"] != 20.0 || u.body["conversations"] != 1.0 {
		t.Fatalf("usage: %s", u.raw)
	}

	// The knowledge-base agent (an instance without an LLM): no tokens.
	plain := newEnv(t, envOptions{})
	kb, _ := plain.start()
	if r := plain.chatText(kb, "opening hours", "en"); r.str("response") != "We are open from 9 to 17." {
		t.Fatalf("knowledge-base chat: %s", r.raw)
	}
	if d := plain.api("GET", "/api/v1/conversations/"+kb, nil); d.status != 200 || d.body["prompt_tokens"] != 0.0 || d.body["completion_tokens"] != 0.0 {
		t.Fatalf("knowledge-base conversation: %s", d.raw)
	}
	if u := plain.api("GET", "/api/v1/usage", nil); u.body["prompt_tokens"] != 0.0 || u.body["completion_tokens"] != 0.0 {
		t.Fatalf("knowledge-base usage: %s", u.raw)
	}
}
