package server

import (
	"testing"
)

// The "nobody left waiting" routes over HTTP: business hours through the
// management API make the handoff answer offline; the widget's contact
// and rating routes answer 204, with CORS, and 400/403 on bad input; the
// rating shows in the API.
func TestOfflineRoutes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	if r := e.api("GET", "/api/v1/business-hours", nil); r.status != 200 || r.body["enabled"] != false {
		t.Fatalf("GET business-hours: %d %s", r.status, r.raw)
	}
	if r := e.api("PUT", "/api/v1/business-hours", map[string]any{"enabled": true, "time_zone": "Nowhere/Land", "days": []any{}}); r.status != 400 {
		t.Fatalf("bad zone: %d %s", r.status, r.raw)
	}
	conv, _ := e.start()
	r := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "Talk to a human"}, nil)
	if r.status != 200 || r.body["offline"] != nil {
		t.Fatalf("handoff, always open: %d %s", r.status, r.raw)
	}
	// Enabled with no opening range: closed all week.
	if r := e.api("PUT", "/api/v1/business-hours", map[string]any{"enabled": true, "time_zone": "Europe/Bucharest", "days": []any{}}); r.status != 200 {
		t.Fatalf("PUT business-hours: %d %s", r.status, r.raw)
	}
	conv, _ = e.start()
	r = e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "Talk to a human"}, nil)
	if r.status != 200 || r.body["offline"] != true || r.str("response") == "" {
		t.Fatalf("handoff outside hours: %d %s", r.status, r.raw)
	}

	contact := func(body map[string]any) response {
		t.Helper()
		return e.do("POST", "/api/widget/contact", body, map[string]string{"Origin": "https://shop.example"})
	}
	for _, bad := range []map[string]any{
		{"conversation_id": conv, "email": "a@example.org"},
		{"key": e.key, "email": "a@example.org"},
		{"key": e.key, "conversation_id": conv},
		{"key": e.key, "conversation_id": conv, "email": "nope"},
		{"key": e.key, "conversation_id": conv, "email": "a@example.org", "lang": "de"},
	} {
		if r := contact(bad); r.status != 400 || r.str("error") == "" {
			t.Errorf("contact %v: %d %s", bad, r.status, r.raw)
		}
	}
	if r := contact(map[string]any{"key": e.key, "conversation_id": "c_nope", "email": "a@example.org"}); r.status != 403 {
		t.Errorf("contact of an unknown conversation: %d %s", r.status, r.raw)
	}
	if r := contact(map[string]any{"key": e.key, "conversation_id": conv, "email": "a@example.org", "lang": "de"}); r.str("error") != "lang must be one of en, ro, ru" {
		t.Errorf("contact in German: %d %s", r.status, r.raw)
	}
	r = contact(map[string]any{"key": e.key, "conversation_id": conv, "email": "ana@example.org", "name": "Ana", "lang": "ro-RO"})
	if r.status != 204 || r.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("contact: %d %s %v", r.status, r.raw, r.header)
	}
	if c, _ := e.store.Conversation(t.Context(), conv); c.Email != "ana@example.org" || c.Name != "Ana" || c.Verified {
		t.Fatalf("conversation: %+v", c)
	}
	if g, _ := e.store.VisitorContact(t.Context(), conv); g.Lang != "ro" {
		t.Fatalf("the contact's language: %+v", g)
	}

	rate := map[string]any{"key": e.key, "conversation_id": conv, "rating": 5, "comment": "Thanks"}
	if r := e.do("POST", "/api/widget/rating", rate, nil); r.status != 400 {
		t.Fatalf("rating before any operator: %d %s", r.status, r.raw)
	}
	e.api("POST", "/api/v1/conversations/"+conv+"/messages", map[string]any{"text": "Hello, Ion here"})
	e.api("POST", "/api/v1/conversations/"+conv+"/release", nil)
	if r := e.do("GET", "/api/widget/poll?key="+e.key+"&conversation_id="+conv, nil, nil); r.body["rate"] != true {
		t.Fatalf("poll after the hand-back: %s", r.raw)
	}
	if r := e.do("POST", "/api/widget/rating", map[string]any{"key": e.key, "conversation_id": conv, "rating": 9}, nil); r.status != 400 {
		t.Fatalf("rating 9: %d %s", r.status, r.raw)
	}
	if r := e.do("POST", "/api/widget/rating", map[string]any{"key": e.key, "conversation_id": conv}, nil); r.status != 400 {
		t.Fatalf("no rating: %d %s", r.status, r.raw)
	}
	if r := e.do("POST", "/api/widget/rating", rate, nil); r.status != 204 {
		t.Fatalf("rating: %d %s", r.status, r.raw)
	}
	r = e.api("GET", "/api/v1/conversations/"+conv+"/rating", nil)
	if r.status != 200 || r.body["rating"] != float64(5) || r.body["comment"] != "Thanks" {
		t.Fatalf("GET rating: %d %s", r.status, r.raw)
	}

	// Resolving a human conversation (mode and assignee kept) offers the
	// rating; a visitor message reopens it and withdraws the offer.
	conv2, _ := e.start()
	poll := func() response {
		t.Helper()
		return e.do("GET", "/api/widget/poll?key="+e.key+"&conversation_id="+conv2, nil, nil)
	}
	e.api("POST", "/api/v1/conversations/"+conv2+"/messages", map[string]any{"text": "Ion here"})
	if r := poll(); r.body["rate"] == true || r.body["handoff"] != "human" {
		t.Fatalf("poll while the operator handles it: %s", r.raw)
	}
	if r := e.api("POST", "/api/v1/conversations/"+conv2+"/resolve", nil); r.status >= 300 {
		t.Fatalf("resolve: %d %s", r.status, r.raw)
	}
	if r := poll(); r.body["rate"] != true || r.body["handoff"] != "human" {
		t.Fatalf("poll after resolving: %s", r.raw)
	}
	if r := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv2, "text": "One more thing"}, nil); r.status != 200 {
		t.Fatalf("visitor message: %d %s", r.status, r.raw)
	}
	if c, _ := e.store.Conversation(t.Context(), conv2); c.Status != "open" {
		t.Fatalf("status after the visitor's message: %q", c.Status)
	}
	if r := poll(); r.body["rate"] == true {
		t.Fatalf("poll after reopening: %s", r.raw)
	}

	r = e.api("GET", "/api/v1/ratings", nil)
	if r.status != 200 || r.body["count"] != float64(1) || r.body["average"] != float64(5) {
		t.Fatalf("GET ratings: %d %s", r.status, r.raw)
	}
	if r := e.api("GET", "/api/v1/ratings?from=yesterday", nil); r.status != 400 {
		t.Fatalf("bad from: %d %s", r.status, r.raw)
	}
}
