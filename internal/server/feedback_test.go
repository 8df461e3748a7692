package server

import (
	"encoding/json"
	"regexp"
	"strconv"
	"testing"

	"parley/internal/domain"
)

// The visitor's thumbs over HTTP (issue 20): the AI body carries the
// answer's message_id, plain and streamed; POST /api/widget/feedback with
// it answers 204 with CORS, is changeable, and shows as the message's
// "helpful" in the management API; bad input is 400, a conversation not
// the visitor's 403 and a message that is no AI answer of it 404
// "message not found"; the route counts toward the widget's rate limit.
func TestWidgetFeedback(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	conv, visitor := e.start()
	r := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "What are your opening hours?"}, nil)
	id := r.str("message_id")
	msgs := e.messages(conv)
	if r.status != 200 || len(msgs) != 2 || id != strconv.FormatInt(msgs[1].Seq, 10) || msgs[1].Role != domain.RoleAI {
		t.Fatalf("chat: %d %s; stored %+v", r.status, r.raw, msgs)
	}
	// Streamed, the done event's body carries it too.
	streamedBody := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "How much does shipping cost?"}, acceptStream)
	events := parseEvents(streamedBody.raw)
	var done struct {
		Response  string `json:"response"`
		MessageID string `json:"message_id"`
	}
	if len(events) == 0 || events[len(events)-1].name != "done" || json.Unmarshal([]byte(events[len(events)-1].data), &done) != nil {
		t.Fatalf("streamed chat: %d %s", streamedBody.status, streamedBody.raw)
	}
	msgs = e.messages(conv)
	if done.Response != "Shipping is free." || done.MessageID != strconv.FormatInt(msgs[3].Seq, 10) {
		t.Fatalf("done event %+v; stored %+v", done, msgs)
	}

	feedback := func(body map[string]any) response {
		t.Helper()
		return e.do("POST", "/api/widget/feedback", body, map[string]string{"Origin": "https://shop.example"})
	}
	helpful := func() (any, bool) {
		t.Helper()
		d := e.api("GET", "/api/v1/conversations/"+conv, nil)
		list, _ := d.body["messages"].([]any)
		for _, m := range list {
			if m := m.(map[string]any); m["id"] == id {
				v, ok := m["helpful"]
				return v, ok
			}
		}
		t.Fatalf("GET conversation: no message %s in %s", id, d.raw)
		return nil, false
	}
	if v, ok := helpful(); ok {
		t.Fatalf("helpful = %v before any feedback; want it absent", v)
	}
	for _, give := range []bool{false, true, true} {
		r := feedback(map[string]any{"key": e.key, "conversation_id": conv, "visitor_id": visitor, "message_id": id, "helpful": give})
		if r.status != 204 || len(r.raw) != 0 || r.header.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("feedback %v: %d %q %v", give, r.status, r.raw, r.header)
		}
		if v, _ := helpful(); v != give {
			t.Fatalf("after feedback %v the API says helpful = %v", give, v)
		}
	}
	if c, _ := e.store.Conversation(t.Context(), conv); c.Helpful != 1 || c.NotHelpful != 0 {
		t.Fatalf("conversation counts: helpful %d, not helpful %d", c.Helpful, c.NotHelpful)
	}

	other, _ := e.start()
	visitorMsg := strconv.FormatInt(msgs[0].Seq, 10)
	for _, tt := range []struct {
		name   string
		body   string
		status int
		error  string
	}{
		{"no key", `{"conversation_id":"` + conv + `","message_id":"` + id + `","helpful":true}`, 400, "key is required"},
		{"no conversation", `{"key":"` + e.key + `","message_id":"` + id + `","helpful":true}`, 400, "conversation_id is required"},
		{"no message", `{"key":"` + e.key + `","conversation_id":"` + conv + `","helpful":true}`, 400, "message_id is required"},
		{"no helpful", `{"key":"` + e.key + `","conversation_id":"` + conv + `","message_id":"` + id + `"}`, 400, "helpful is required (true or false)"},
		{"helpful as text", `{"key":"` + e.key + `","conversation_id":"` + conv + `","message_id":"` + id + `","helpful":"yes"}`, 400, ""},
		{"id as a number", `{"key":"` + e.key + `","conversation_id":"` + conv + `","message_id":` + id + `,"helpful":true}`, 400, ""},
		{"id not a number", `{"key":"` + e.key + `","conversation_id":"` + conv + `","message_id":"abc","helpful":true}`, 400, ""},
		{"an unknown field", `{"key":"` + e.key + `","conversation_id":"` + conv + `","message_id":"` + id + `","helpful":true,"x":1}`, 400, ""},
		{"an unknown conversation", `{"key":"` + e.key + `","conversation_id":"c_nope","message_id":"` + id + `","helpful":true}`, 403, "conversation is invalid"},
		{"another visitor", `{"key":"` + e.key + `","conversation_id":"` + conv + `","visitor_id":"v_other","message_id":"` + id + `","helpful":true}`, 403, "conversation is invalid"},
		{"a bad key", `{"key":"wk_nope","conversation_id":"` + conv + `","message_id":"` + id + `","helpful":true}`, 403, "widget key is invalid or inactive"},
		{"the visitor's message", `{"key":"` + e.key + `","conversation_id":"` + conv + `","message_id":"` + visitorMsg + `","helpful":false}`, 404, "message not found"},
		{"another conversation's answer", `{"key":"` + e.key + `","conversation_id":"` + other + `","message_id":"` + id + `","helpful":false}`, 404, "message not found"},
	} {
		r := e.do("POST", "/api/widget/feedback", tt.body, nil)
		if r.status != tt.status || r.str("error") == "" || (tt.error != "" && r.str("error") != tt.error) || r.header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: %d %s", tt.name, r.status, r.raw)
		}
	}
	if v, _ := helpful(); v != true {
		t.Fatalf("a refused feedback changed the stored one: %v", v)
	}
	if !regexp.MustCompile(`^[0-9]+$`).MatchString(id) {
		t.Fatalf("message_id %q is not digits", id)
	}
}

// The route is a widget route like the others: its preflight answers 204
// with CORS, and it counts toward the per-address limit.
func TestWidgetFeedbackCORSAndRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{rateLimit: 2})
	r := e.do("OPTIONS", "/api/widget/feedback", nil, map[string]string{
		"Origin": "https://any.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type",
	})
	if r.status != 204 || r.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("preflight: %d %v", r.status, r.header)
	}
	conv, _ := e.start()
	body := map[string]any{"key": e.key, "conversation_id": conv, "message_id": "1", "helpful": true}
	if r := e.do("POST", "/api/widget/feedback", body, nil); r.status == 429 {
		t.Fatalf("the second request was limited: %s", r.raw)
	}
	wantError(t, e.do("POST", "/api/widget/feedback", body, nil), 429, "")
}
