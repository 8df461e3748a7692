package server

import (
	"encoding/json"
	"strings"
	"testing"

	"parley/internal/domain"
)

// TestVisitorExportComplete: the export has, per conversation, the
// identity fields, the browser details and page history the widget sent
// (oldest page first, with times), when the visitor left a contact and
// last polled, their rating and their thumbs on answers; null or empty
// where nothing was stored; never the team's notes. The conversation
// summaries carry the identity fields too. After the erasure the rating
// and notes routes are 404.
func TestVisitorExportComplete(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	const visitor = "v_complete_1"
	r := e.do("POST", "/api/widget/init", map[string]any{"key": e.key, "visitor_id": visitor, "page_url": "https://shop.example/",
		"language": "ro-RO", "time_zone": "Europe/Bucharest", "referrer": "https://search.example/?q=shop"},
		map[string]string{"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0"})
	if r.status != 200 {
		t.Fatalf("init: %d %s", r.status, r.raw)
	}
	conv := r.str("conversation_id")
	answer := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "what are your opening hours?",
		"page_url": "https://shop.example/pricing"}, nil)
	if answer.status != 200 {
		t.Fatalf("chat: %d %s", answer.status, answer.raw)
	}
	// The visitor's thumbs on the answer (issue 20) is theirs too.
	if r := e.do("POST", "/api/widget/feedback", map[string]any{"key": e.key, "conversation_id": conv, "message_id": answer.str("message_id"), "helpful": false}, nil); r.status != 204 {
		t.Fatalf("feedback: %d %s", r.status, r.raw)
	}
	if r := e.do("GET", "/api/widget/poll?key="+e.key+"&conversation_id="+conv, nil, nil); r.status != 200 {
		t.Fatalf("poll: %d %s", r.status, r.raw)
	}
	if r := e.do("POST", "/api/widget/contact", map[string]any{"key": e.key, "conversation_id": conv, "name": "Ana", "email": "ana@example.org", "lang": "ro"}, nil); r.status != 204 {
		t.Fatalf("contact: %d %s", r.status, r.raw)
	}
	if r := e.api("POST", "/api/v1/conversations/"+conv+"/messages", map[string]any{"text": "Hello, Ion here"}); r.status != 200 && r.status != 201 {
		t.Fatalf("operator reply: %d %s", r.status, r.raw)
	}
	if r := e.do("POST", "/api/widget/rating", map[string]any{"key": e.key, "conversation_id": conv, "rating": 4, "comment": "quick"}, nil); r.status != 204 {
		t.Fatalf("rating: %d %s", r.status, r.raw)
	}
	if r := e.api("POST", "/api/v1/conversations/"+conv+"/notes", map[string]any{"text": "team only: wants a refund"}); r.status != 201 {
		t.Fatalf("note: %d %s", r.status, r.raw)
	}
	// A second conversation of the same person, signed in on another
	// device: verified, nothing else stored.
	secret := e.api("GET", "/api/v1/agents/"+e.agent.ID, nil).str("identity_secret")
	r = e.do("POST", "/api/widget/init", map[string]any{"key": e.key, "visitor_id": "v_laptop", "user_id": visitor,
		"user_hash": domain.UserHash(secret, visitor), "name": "Ana Verified", "email": "ana@shop.example"}, nil)
	if r.status != 200 {
		t.Fatalf("verified init: %d %s", r.status, r.raw)
	}
	verified := r.str("conversation_id")

	r = e.api("GET", "/api/v1/visitors/"+visitor+"/export", nil)
	if r.status != 200 {
		t.Fatalf("export: %d %s", r.status, r.raw)
	}
	if strings.Contains(string(r.raw), "wants a refund") || strings.Contains(string(r.raw), "notes") {
		t.Errorf("the team's note is in the export: %s", r.raw)
	}
	type page struct {
		URL string `json:"url"`
		At  string `json:"at"`
	}
	var export struct {
		Conversations []struct {
			ID             string  `json:"id"`
			UserID         *string `json:"user_id"`
			Name           *string `json:"name"`
			Email          *string `json:"email"`
			Verified       *bool   `json:"verified"`
			VisitorDetails *struct {
				UserAgent string `json:"user_agent"`
				Language  string `json:"language"`
				TimeZone  string `json:"time_zone"`
				Referrer  string `json:"referrer"`
				Pages     []page `json:"pages"`
			} `json:"visitor_details"`
			ContactLeftAt   *string `json:"contact_left_at"`
			ContactLanguage *string `json:"contact_language"`
			LastPolledAt    *string `json:"last_polled_at"`
			Rating          *struct {
				Rating  int    `json:"rating"`
				Comment string `json:"comment"`
				RatedAt string `json:"rated_at"`
			} `json:"rating"`
			Messages []json.RawMessage `json:"messages"`
		} `json:"conversations"`
	}
	if err := json.Unmarshal(r.raw, &export); err != nil {
		t.Fatal(err)
	}
	if len(export.Conversations) != 2 || export.Conversations[0].ID != conv || export.Conversations[1].ID != verified {
		t.Fatalf("export %s, want %s then %s", r.raw, conv, verified)
	}
	full, bare := export.Conversations[0], export.Conversations[1]
	if full.UserID == nil || *full.UserID != "" || full.Name == nil || *full.Name != "Ana" || full.Email == nil || *full.Email != "ana@example.org" ||
		full.Verified == nil || *full.Verified {
		t.Errorf("identity of the anonymous conversation: %s", r.raw)
	}
	d := full.VisitorDetails
	if d == nil || d.UserAgent != "Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0" || d.Language != "ro-RO" || d.TimeZone != "Europe/Bucharest" ||
		d.Referrer != "https://search.example/?q=shop" {
		t.Fatalf("visitor details: %s", r.raw)
	}
	if len(d.Pages) != 2 || d.Pages[0].URL != "https://shop.example/" || d.Pages[1].URL != "https://shop.example/pricing" || d.Pages[0].At == "" {
		t.Errorf("pages %+v, want the home page then pricing", d.Pages)
	}
	if full.ContactLeftAt == nil || full.LastPolledAt == nil {
		t.Errorf("contact_left_at %v, last_polled_at %v: want times", full.ContactLeftAt, full.LastPolledAt)
	}
	if full.ContactLanguage == nil || *full.ContactLanguage != "ro" {
		t.Errorf("contact_language: %s", r.raw)
	}
	if rt := full.Rating; rt == nil || rt.Rating != 4 || rt.Comment != "quick" || rt.RatedAt == "" {
		t.Errorf("rating %+v", rt)
	}
	if len(full.Messages) != 3 {
		t.Errorf("%d messages, want 3 (visitor, AI, operator)", len(full.Messages))
	} else if ai := string(full.Messages[1]); !strings.Contains(ai, `"role":"ai"`) || !strings.Contains(ai, `"helpful":false`) ||
		strings.Contains(string(full.Messages[0]), "helpful") || strings.Contains(string(full.Messages[2]), "helpful") {
		t.Errorf("the visitor's thumbs in the export: %s", r.raw)
	}
	if *bare.UserID != visitor || *bare.Name != "Ana Verified" || *bare.Email != "ana@shop.example" || !*bare.Verified {
		t.Errorf("verified identity: %s", r.raw)
	}
	if bd := bare.VisitorDetails; bd == nil || bd.Language != "" || bd.TimeZone != "" || bd.Pages == nil || len(bd.Pages) != 0 {
		t.Errorf("details of the second conversation (no page, no language): %+v", bd)
	}
	if bare.ContactLeftAt != nil || bare.Rating != nil {
		t.Errorf("the second conversation: contact %v, rating %+v, want null", bare.ContactLeftAt, bare.Rating)
	}
	for _, key := range []string{`"contact_left_at":null`, `"contact_language":""`, `"rating":null`, `"pages":[]`} {
		if !strings.Contains(string(r.raw), key) {
			t.Errorf("export without %s: %s", key, r.raw)
		}
	}

	// The summaries carry the identity fields.
	list := e.api("GET", "/api/v1/conversations", nil)
	found := 0
	for _, c := range list.body["conversations"].([]any) {
		c := c.(map[string]any)
		switch c["id"] {
		case verified:
			found++
			if c["user_id"] != visitor || c["name"] != "Ana Verified" || c["email"] != "ana@shop.example" || c["verified"] != true {
				t.Errorf("verified summary %v", c)
			}
		case conv:
			found++
			if c["user_id"] != "" || c["name"] != "Ana" || c["email"] != "ana@example.org" || c["verified"] != false {
				t.Errorf("anonymous summary %v", c)
			}
		}
	}
	if found != 2 {
		t.Errorf("list %s", list.raw)
	}
	one := e.api("GET", "/api/v1/conversations/"+verified, nil)
	if one.status != 200 || one.body["user_id"] != visitor || one.body["verified"] != true || one.body["name"] != "Ana Verified" {
		t.Errorf("conversation %d %s", one.status, one.raw)
	}

	if r := e.api("DELETE", "/api/v1/visitors/"+visitor, nil); r.status != 204 {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	for _, path := range []string{"/rating", "/notes", ""} {
		wantError(t, e.api("GET", "/api/v1/conversations/"+conv+path, nil), 404, "")
	}
	wantError(t, e.api("GET", "/api/v1/conversations/"+verified, nil), 404, "")
}
