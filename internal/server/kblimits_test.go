package server

import (
	"bytes"
	"mime/multipart"
	"strings"
	"testing"

	"parley/internal/domain"
)

// The instance's bounds through the management API: past an agent's
// knowledge bounds every path that would grow it answers 413 with what the
// bound is, past the account's agents 403; deleting is always allowed.
func TestKnowledgeBoundsAPI(t *testing.T) {
	t.Parallel()
	// The env's agent starts with two items of 98 characters.
	e := newEnv(t, envOptions{bounds: domain.Bounds{Knowledge: domain.KnowledgeLimits{MaxItems: 4, MaxChars: 300}, MaxAgents: 2}})
	base := "/api/v1/agents/" + e.agent.ID + "/knowledge"
	want := func(what string, r response, status int, msg string) {
		t.Helper()
		if r.status != status || r.str("error") != msg || len(r.body) != 1 {
			t.Fatalf("%s: %d %s, want %d {\"error\": %q}", what, r.status, r.raw, status, msg)
		}
	}
	chars := `an agent's knowledge is limited to 300 characters in all (questions, answers, titles and texts); this change would make it `
	items := `an agent's knowledge is limited to 4 items; delete some before adding more`

	if r := e.api("POST", base, map[string]any{"question": "Gift wrap?", "answer": "Yes."}); r.status != 201 {
		t.Fatalf("add within the bounds: %d %s", r.status, r.raw)
	}
	// An upload: 98 + 14 + the title "handbook" (8) + 250.
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("file", "handbook.md")
	fw.Write([]byte(strings.Repeat("ă", 250)))
	mw.Close()
	want("upload past the characters", e.do("POST", base, buf.Bytes(), map[string]string{
		"Authorization": "Bearer " + e.token, "Content-Type": mw.FormDataContentType()}), 413, chars+"370")

	last := e.api("POST", base, map[string]any{"question": "Last?", "answer": "Yes."})
	if last.status != 201 {
		t.Fatalf("the fourth item: %d %s", last.status, last.raw)
	}
	want("a fifth item", e.api("POST", base, map[string]any{"question": "More?", "answer": "No."}), 413, items)
	want("an edit past the characters", e.api("PATCH", base+"/"+last.str("id"), map[string]any{"answer": strings.Repeat("x", 200)}), 413, chars+"317")
	if r := e.api("DELETE", base+"/"+last.str("id"), nil); r.status != 204 {
		t.Fatalf("delete: %d", r.status)
	}
	if r := e.api("POST", base, map[string]any{"question": "More?", "answer": "Yes."}); r.status != 201 {
		t.Fatalf("an item after a deletion: %d %s", r.status, r.raw)
	}

	five := []map[string]any{}
	for range 5 {
		five = append(five, map[string]any{"question": "q", "answer": "a"})
	}
	want("PATCH agent with five items", e.api("PATCH", "/api/v1/agents/"+e.agent.ID, map[string]any{"knowledge": five}), 413, items)
	long := []map[string]any{{"question": "q", "answer": strings.Repeat("x", 300)}}
	want("PATCH agent with 301 characters", e.api("PATCH", "/api/v1/agents/"+e.agent.ID, map[string]any{"knowledge": long}), 413, chars+"301")
	want("a new agent with 301 characters", e.api("POST", "/api/v1/agents", map[string]any{"chatbot_name": "Big", "knowledge": long}), 413, chars+"301")
	if kb := e.api("GET", base, nil); len(kb.body["knowledge"].([]any)) != 4 {
		t.Fatalf("refused changes changed the knowledge: %s", kb.raw)
	}

	// Agents: the env's and one more.
	if r := e.api("POST", "/api/v1/agents", map[string]any{"chatbot_name": "Second"}); r.status != 201 {
		t.Fatalf("a second agent: %d %s", r.status, r.raw)
	}
	want("a third agent", e.api("POST", "/api/v1/agents", map[string]any{"chatbot_name": "Third"}), 403,
		"an account may have 2 agents at most on this instance, and this one has reached that limit")
	if list := e.api("GET", "/api/v1/agents", nil); len(list.body["agents"].([]any)) != 2 {
		t.Fatalf("agents: %s", list.raw)
	}
}
