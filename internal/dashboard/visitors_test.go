package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"parley/internal/chat"
	"parley/internal/domain"
	"parley/internal/privacy"
)

// TestVisitorExportAndDelete: an owner's conversation page offers the
// two actions (an operator's does not, and gets 403 on the routes); the
// export downloads the service's JSON (the API's) of every conversation
// of the visitor; the delete asks first (a GET changes nothing), then the
// POST erases them and returns to the inbox with a notice; another
// visitor's conversation and another account's stay.
func TestVisitorExportAndDelete(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	ctx := context.Background()
	first := td.visit("my email is ana@example.com")
	conv, err := td.st.Conversation(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	res, err := td.chat.Init(ctx, chat.InitInput{Key: td.key, VisitorID: conv.VisitorID, PageURL: "https://shop.example/"})
	if err != nil {
		t.Fatal(err)
	}
	second := res.ConversationID
	if _, err := td.chat.Chat(ctx, chat.ChatInput{Key: td.key, ConversationID: second, Text: "hello again"}); err != nil {
		t.Fatal(err)
	}
	bystander := td.visit("someone else")
	owner := td.withSession(td.owner)

	p := owner.get("/conversations/" + first)
	for _, want := range []string{`href="/conversations/` + first + `/visitor/export" download`, `href="/conversations/` + first + `/visitor/delete"`, "Export visitor data", "Delete visitor data"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("conversation page lacks %q", want)
		}
	}

	p = owner.get("/conversations/" + first + "/visitor/export")
	if p.status != http.StatusOK || !strings.HasPrefix(p.header.Get("Content-Type"), "application/json") ||
		!strings.Contains(p.header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("export: %d %v", p.status, p.header)
	}
	want, err := (&privacy.Service{Store: td.st}).Export(ctx, td.owner.AccountID, conv.VisitorID)
	if err != nil {
		t.Fatal(err)
	}
	wantJSON, _ := json.Marshal(want)
	if strings.TrimSpace(p.body) != string(wantJSON) {
		t.Errorf("export %s, want %s", p.body, wantJSON)
	}
	var got privacy.Export
	if err := json.Unmarshal([]byte(p.body), &got); err != nil {
		t.Fatal(err)
	}
	if got.VisitorID != conv.VisitorID || len(got.Conversations) != 2 || got.Conversations[0].ID != first || got.Conversations[1].ID != second ||
		len(got.Conversations[0].Messages) < 2 || got.Conversations[0].Messages[0].Text != "my email is ana@example.com" {
		t.Errorf("export %+v", got)
	}

	op := td.newUser("op@example.com", "Oleg Operator", td.owner.AccountID)
	asOp := td.withSession(op)
	if p := asOp.get("/conversations/" + first); strings.Contains(p.body, "/visitor/delete") {
		t.Error("an operator is offered the delete")
	}
	for _, r := range []page{asOp.get("/conversations/" + first + "/visitor/export"), asOp.post("/conversations/"+first+"/visitor/delete", url.Values{})} {
		if r.status != http.StatusForbidden {
			t.Errorf("operator: %d", r.status)
		}
	}

	p = owner.get("/conversations/" + first + "/visitor/delete")
	if p.status != http.StatusOK || !strings.Contains(p.body, `<form method="post" action="/conversations/`+first+`/visitor/delete"`) ||
		!strings.Contains(p.body, "cannot be undone") {
		t.Fatalf("confirm page: %d %s", p.status, p.body)
	}
	if _, err := td.st.Conversation(ctx, first); err != nil {
		t.Fatalf("the confirm page deleted: %v", err)
	}
	p = owner.post("/conversations/"+first+"/visitor/delete", url.Values{})
	if p.status != http.StatusSeeOther || p.location != "/inbox?flash=privacy.deleted" {
		t.Fatalf("delete: %d %q", p.status, p.location)
	}
	for _, id := range []string{first, second} {
		if _, err := td.st.Conversation(ctx, id); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("conversation %s after the delete: %v", id, err)
		}
	}
	if _, err := td.st.Conversation(ctx, bystander); err != nil {
		t.Errorf("another visitor's conversation: %v", err)
	}
	if p := owner.get("/inbox?flash=privacy.deleted"); !strings.Contains(p.body, "The visitor&#39;s data was deleted.") {
		t.Errorf("inbox notice missing: %s", p.body)
	}
	if p := owner.get("/conversations/" + first + "/visitor/export"); p.status != http.StatusNotFound {
		t.Errorf("export after the delete: %d", p.status)
	}
}
