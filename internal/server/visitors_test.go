package server

import (
	"encoding/json"
	"testing"

	"parley/internal/domain"
)

// TestVisitorExportAndDelete: the export holds the visitor's conversations
// in the account, oldest first, with their transcripts, and no one else's;
// another account's visitor is 404 for both routes and is left alone; the
// delete is 204, then the export and a second delete are 404, the widget's
// poll and chat of a deleted conversation answer as for an unknown one,
// and the visitor's id starts a fresh conversation.
func TestVisitorExportAndDelete(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	first, visitor := e.start()
	chat := func(conv, text string) response {
		return e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": text}, nil)
	}
	if r := chat(first, "what are your opening hours?"); r.status != 200 {
		t.Fatalf("chat: %d %s", r.status, r.raw)
	}
	r := e.do("POST", "/api/widget/init", map[string]any{"key": e.key, "visitor_id": visitor}, nil)
	second := r.str("conversation_id")
	if r.status != 200 || second == first {
		t.Fatalf("second init: %d %s", r.status, r.raw)
	}
	if r := chat(second, "how much does shipping cost?"); r.status != 200 {
		t.Fatalf("chat: %d %s", r.status, r.raw)
	}
	bystander, _ := e.start()

	// Another account, whose site saw the same visitor id.
	otherAcc, otherToken := e.newAccount("other@example.com", domain.Limits{MonthlyConversations: 100})
	_, otherKey := e.newAgent(otherAcc.ID, "Other", `{}`)
	r = e.do("POST", "/api/widget/init", map[string]any{"key": otherKey, "visitor_id": visitor}, nil)
	if r.status != 200 {
		t.Fatalf("other init: %d %s", r.status, r.raw)
	}
	otherConv := r.str("conversation_id")
	asOther := map[string]string{"Authorization": "Bearer " + otherToken}

	r = e.api("GET", "/api/v1/visitors/"+visitor+"/export", nil)
	if r.status != 200 {
		t.Fatalf("export: %d %s", r.status, r.raw)
	}
	var export struct {
		VisitorID     string `json:"visitor_id"`
		Conversations []struct {
			ID        string `json:"id"`
			VisitorID string `json:"visitor_id"`
			AgentID   string `json:"agent_id"`
			Messages  []struct {
				ID        string `json:"id"`
				Role      string `json:"role"`
				Text      string `json:"text"`
				CreatedAt string `json:"created_at"`
			} `json:"messages"`
		} `json:"conversations"`
	}
	if err := json.Unmarshal(r.raw, &export); err != nil {
		t.Fatal(err)
	}
	if export.VisitorID != visitor || len(export.Conversations) != 2 ||
		export.Conversations[0].ID != first || export.Conversations[1].ID != second {
		t.Fatalf("export %s, want %s then %s of %s", r.raw, first, second, visitor)
	}
	for _, c := range export.Conversations {
		if c.VisitorID != visitor || c.AgentID != e.agent.ID || len(c.Messages) != 2 {
			t.Errorf("exported conversation %+v", c)
		}
		if m := c.Messages; len(m) == 2 && (m[0].Role != "visitor" || m[1].Role != "ai" || m[0].ID == "" || m[0].CreatedAt == "") {
			t.Errorf("exported messages %+v", m)
		}
	}
	if got := export.Conversations[0].Messages; len(got) == 2 && got[0].Text != "what are your opening hours?" {
		t.Errorf("first message %q", got[0].Text)
	}

	// The other account sees only its own conversation; neither account
	// can erase the other's.
	r = e.do("GET", "/api/v1/visitors/"+visitor+"/export", nil, asOther)
	if r.status != 200 || len(r.body["conversations"].([]any)) != 1 {
		t.Fatalf("other account's export: %d %s", r.status, r.raw)
	}
	wantError(t, e.api("GET", "/api/v1/visitors/v_nobody/export", nil), 404, "")
	wantError(t, e.do("DELETE", "/api/v1/visitors/v_nobody", nil, asOther), 404, "")

	// Poll once first, so whatever is cached of the conversation is.
	poll := "/api/widget/poll?key=" + e.key + "&conversation_id="
	if r := e.do("GET", poll+first, nil, nil); r.status != 200 {
		t.Fatalf("poll: %d %s", r.status, r.raw)
	}
	if r := e.api("DELETE", "/api/v1/visitors/"+visitor, nil); r.status != 204 || len(r.raw) != 0 {
		t.Fatalf("delete: %d %q", r.status, r.raw)
	}
	wantError(t, e.api("GET", "/api/v1/visitors/"+visitor+"/export", nil), 404, "")
	wantError(t, e.api("DELETE", "/api/v1/visitors/"+visitor, nil), 404, "")
	for _, c := range []string{first, second} {
		wantError(t, e.do("GET", poll+c, nil, nil), 403, "") // as for cv_x in TestPollErrors
		wantError(t, chat(c, "still there?"), 403, "")
		wantError(t, e.api("GET", "/api/v1/conversations/"+c, nil), 404, "")
		if msgs := e.messages(c); len(msgs) != 0 {
			t.Errorf("messages left in %s: %+v", c, msgs)
		}
	}
	if r := e.do("GET", poll+bystander, nil, nil); r.status != 200 {
		t.Errorf("another visitor's poll: %d %s", r.status, r.raw)
	}
	if r := e.do("GET", "/api/v1/conversations/"+otherConv, nil, asOther); r.status != 200 {
		t.Errorf("other account's conversation of the same visitor id: %d %s", r.status, r.raw)
	}
	r = e.do("POST", "/api/widget/init", map[string]any{"key": e.key, "visitor_id": visitor}, nil)
	if r.status != 200 || r.str("conversation_id") == first || r.str("conversation_id") == second {
		t.Errorf("init after the delete: %d %s", r.status, r.raw)
	}
}
