package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"parley/internal/chat"
	"parley/internal/domain"
)

// The agent page shows the identity secret and rotates it; the settings
// form edits require_identity.
func TestAgentIdentitySecret(t *testing.T) {
	t.Parallel()
	e := newAgEnv(t)
	a, _ := e.newAgent(e.owner.AccountID, "Helper")
	ctx := context.Background()
	secret := func() string {
		s, err := e.st.IdentitySecret(ctx, a.AccountID, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	page := e.get("/agents/" + a.ID)
	first := secret()
	if first == "" || !strings.Contains(page.body, `id="identity-secret" class="code" readonly value="`+first+`"`) {
		t.Fatalf("the page does not show the secret %q", first)
	}
	if p := e.post("/agents/"+a.ID+"/identity-secret", url.Values{}); p.status != http.StatusSeeOther {
		t.Fatalf("rotate: %d %s", p.status, p.body)
	}
	if now := secret(); now == first || now == "" {
		t.Fatalf("the secret after rotation is %q (was %q)", now, first)
	}
	v := url.Values{"name": {"Helper"}, "color": {"#2563eb"}, "position": {"right"}, "require_identity": {"on"}}
	if p := e.post("/agents/"+a.ID, v); p.status != http.StatusSeeOther {
		t.Fatalf("save: %d %s", p.status, p.body)
	}
	ag, _ := e.st.Agent(ctx, a.AccountID, a.ID)
	if ag.Config.RequireIdentity == nil || !*ag.Config.RequireIdentity {
		t.Fatalf("require_identity not saved: %s", ag.Config.JSON())
	}
	if !strings.Contains(e.get("/agents/"+a.ID).body, `name="require_identity" value="on" checked`) {
		t.Errorf("the form does not show require_identity ticked")
	}
}

// The conversation page and the inbox show the contact's name, email and
// whether they are verified; the page lists the verified contact's other
// conversations, and an unverified one's name never links anything.
func TestContactInConversation(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	ctx := context.Background()
	secret, err := td.st.SetIdentitySecret(ctx, td.owner.AccountID, td.agent.ID, "is_test", true)
	if err != nil {
		t.Fatal(err)
	}
	init := func(id domain.Identity, text string) string {
		t.Helper()
		res, err := td.chat.Init(ctx, chat.InitInput{Key: td.key, Identity: id})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := td.chat.Chat(ctx, chat.ChatInput{Key: td.key, ConversationID: res.ConversationID, Text: text}); err != nil {
			t.Fatal(err)
		}
		return res.ConversationID
	}
	ana := domain.Identity{UserID: "user-42", UserHash: domain.UserHash(secret, "user-42"), Name: "Ana Pop", Email: "ana@example.com"}
	older := init(ana, "first question")
	newer := init(ana, "second question")
	claim := init(domain.Identity{UserID: "user-42", Name: "Mallory"}, "unsigned")

	b := td.signedIn(td.owner)
	p := b.get("/conversations/" + newer)
	for _, want := range []string{"Ana Pop", "ana@example.com", `class="badge verified"`, "user-42"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("the verified conversation's page lacks %q", want)
		}
	}
	// The page also holds the inbox's list (the split view), which links
	// every conversation: the contact's others are those in their section.
	at := strings.Index(p.body, `id="contact-others"`)
	if at < 0 {
		t.Fatal("the verified conversation's page has no section of the contact's other conversations")
	}
	others := p.body[at:]
	others = others[:strings.Index(others, "</section>")]
	if !strings.Contains(others, `href="/conversations/`+older+`"`) {
		t.Errorf("the contact's older conversation is not listed under the contact")
	}
	if strings.Contains(others, `href="/conversations/`+claim+`"`) {
		t.Errorf("the unverified claim is listed under the contact")
	}
	p = b.get("/conversations/" + claim)
	if !strings.Contains(p.body, "Mallory") || !strings.Contains(p.body, `class="badge unverified"`) || strings.Contains(p.body, "contact-others") {
		t.Errorf("the unverified conversation's page: name, unverified badge, no other conversations expected")
	}
	inbox := b.get("/inbox").body
	if !strings.Contains(inbox, "Ana Pop") || !strings.Contains(inbox, `class="badge verified"`) || !strings.Contains(inbox, "ana@example.com") {
		t.Errorf("the inbox does not show the contact")
	}
}
