package server

import (
	"strings"
	"testing"
	"time"
)

// Typing indicators (issue 19) over HTTP: an operator's signal from the
// dashboard shows in the widget's poll (and wakes a waiting long poll)
// until it goes stale; the widget's signal is validated, answers 204 with
// CORS, and shows on the dashboard's conversation page while a person
// handles the conversation.
func TestTypingIndicators(t *testing.T) {
	t.Parallel()
	clk := newSettable(time.Now())
	e := newEnv(t, envOptions{clock: clk.now})
	conv, visitor := e.start()
	ana := e.deskOperator("Ana")
	session := e.deskSession(ana)
	poll := func(q string) response {
		t.Helper()
		r := e.do("GET", "/api/widget/poll?key="+e.key+"&conversation_id="+conv+q, nil, nil)
		if r.status != 200 {
			t.Fatalf("poll: %d %s", r.status, r.raw)
		}
		return r
	}
	typingName := func(r response) string {
		ty, _ := r.body["typing"].(map[string]any)
		s, _ := ty["name"].(string)
		return s
	}
	if r := poll(""); r.body["typing"] != nil {
		t.Fatalf("typing before any signal: %s", r.raw)
	}

	// The operator's signal.
	if r := e.do("POST", "/conversations/"+conv+"/typing", "", session); r.status != 204 {
		t.Fatalf("operator typing: %d %s", r.status, r.raw)
	}
	if r := poll(""); typingName(r) != "Ana" {
		t.Fatalf("poll after the signal: %s", r.raw)
	}
	clk.add(7 * time.Second)
	if r := poll(""); r.body["typing"] != nil {
		t.Fatalf("typing after the TTL: %s", r.raw)
	}
	// A waiting long poll answers when the operator starts typing.
	cur := poll("").str("cursor")
	done := make(chan response, 1)
	go func() {
		done <- e.do("GET", "/api/widget/poll?key="+e.key+"&conversation_id="+conv+"&wait=25&after="+cur, nil, nil)
	}()
	for e.chat.Waiting() == 0 {
		time.Sleep(time.Millisecond)
	}
	if r := e.do("POST", "/conversations/"+conv+"/typing", "", session); r.status != 204 {
		t.Fatalf("operator typing: %d %s", r.status, r.raw)
	}
	select {
	case r := <-done:
		if r.status != 200 || typingName(r) != "Ana" {
			t.Fatalf("long poll: %d %s", r.status, r.raw)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the long poll did not wake on the typing signal")
	}
	// A reply clears the indicator.
	e.api("POST", "/api/v1/conversations/"+conv+"/messages", map[string]any{"text": "Hello"})
	if r := poll(""); r.body["typing"] != nil {
		t.Fatalf("typing after the reply: %s", r.raw)
	}
	if r := e.do("POST", "/conversations/c_nope/typing", "", session); r.status != 404 {
		t.Fatalf("unknown conversation: %d", r.status)
	}
	// Cross-site: refused like every dashboard POST.
	cross := map[string]string{"Cookie": session["Cookie"], "Sec-Fetch-Site": "cross-site"}
	if r := e.do("POST", "/conversations/"+conv+"/typing", "", cross); r.status != 403 {
		t.Fatalf("cross-site typing: %d", r.status)
	}

	// The visitor's signal.
	vt := func(body map[string]any) response {
		t.Helper()
		return e.do("POST", "/api/widget/typing", body, map[string]string{"Origin": "https://shop.example"})
	}
	for _, bad := range []map[string]any{
		{"conversation_id": conv},
		{"key": e.key},
	} {
		if r := vt(bad); r.status != 400 || r.str("error") == "" {
			t.Errorf("typing %v: %d %s", bad, r.status, r.raw)
		}
	}
	for _, bad := range []map[string]any{
		{"key": e.key, "conversation_id": "c_nope"},
		{"key": e.key, "conversation_id": conv, "visitor_id": "v_someone_else"},
		{"key": e.key, "conversation_id": conv, "visitor_id": "bad id!"},
	} {
		if r := vt(bad); r.status != 403 {
			t.Errorf("typing %v: %d %s", bad, r.status, r.raw)
		}
	}
	page := func() string {
		t.Helper()
		r := e.do("GET", "/conversations/"+conv+"?partial=1", nil, session)
		if r.status != 200 {
			t.Fatalf("partial: %d", r.status)
		}
		return string(r.raw)
	}
	if strings.Contains(page(), "data-typing") {
		t.Fatal("visitor typing before any signal")
	}
	r := vt(map[string]any{"key": e.key, "conversation_id": conv, "visitor_id": visitor})
	if r.status != 204 || r.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("visitor typing: %d %s %v", r.status, r.raw, r.header)
	}
	if p := page(); !strings.Contains(p, "data-typing") || !strings.Contains(p, "Visitor is typing") {
		t.Fatalf("partial lacks the visitor's typing:\n%s", p)
	}
	clk.add(7 * time.Second)
	if strings.Contains(page(), "data-typing") {
		t.Fatal("visitor typing after the TTL")
	}
	// An AI-handled conversation accepts the signal and shows nothing.
	e.api("POST", "/api/v1/conversations/"+conv+"/release", nil)
	if r := vt(map[string]any{"key": e.key, "conversation_id": conv, "visitor_id": visitor}); r.status != 204 {
		t.Fatalf("visitor typing, AI: %d", r.status)
	}
	if strings.Contains(page(), "data-typing") {
		t.Fatal("visitor typing shows while the AI handles the conversation")
	}
}
