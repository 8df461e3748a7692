package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"parley/internal/demo"
)

// The bounds' settings reach the running program: with the demo account's
// one agent and its knowledge at the bounds, another agent is 403 and
// another item 413.
func TestKnowledgeBoundSettings(t *testing.T) {
	t.Parallel()
	a := startOnTerminal(t, filepath.Join(t.TempDir(), "parley.db"), map[string]string{
		"PARLEY_MAX_AGENTS_PER_ACCOUNT": "1", "PARLEY_KNOWLEDGE_MAX_ITEMS": fmt.Sprint(len(demo.Knowledge)),
	})
	token := field(t, a.stdout.String(), "API token")
	status, body := post(t, a.base+"/api/v1/agents", token, map[string]any{"chatbot_name": "Second"})
	if msg, _ := body["error"].(string); status != 403 || !strings.Contains(msg, "may have 1 agents at most") {
		t.Fatalf("a second agent: %d %v", status, body)
	}
	_, list := get(t, a.base+"/api/v1/agents", token)
	id := list["agents"].([]any)[0].(map[string]any)["id"].(string)
	status, body = post(t, a.base+"/api/v1/agents/"+id+"/knowledge", token, map[string]any{"question": "q", "answer": "a"})
	if msg, _ := body["error"].(string); status != 413 || !strings.Contains(msg, fmt.Sprintf("limited to %d items", len(demo.Knowledge))) {
		t.Fatalf("one item more than the demo has: %d %v", status, body)
	}
}
