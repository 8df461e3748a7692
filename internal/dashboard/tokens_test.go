package dashboard

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// The usage page shows the month's LLM tokens (by the replies' month) and
// the conversation page the conversation's totals, each only once there
// are any, in the page's language.
func TestUsageAndConversationShowTokens(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, func(mux *http.ServeMux, d *Dashboard) {
		allRoutes(mux, d)
		mux.HandleFunc("GET /usage", d.requireUser(d.Usage))
	})
	td.d.Now = func() time.Time { return usageNow }
	ctx := context.Background()
	lastMonth := usageNow.AddDate(0, -1, 0)
	c, err := td.st.CreateConversation(ctx, store.NewConversation{
		AgentID: td.agent.ID, AccountID: td.agent.AccountID, VisitorID: "v_test", CreatedAt: lastMonth})
	if err != nil {
		t.Fatal(err)
	}
	op := td.newUser("op@example.com", "Oleg", td.owner.AccountID)
	b := td.withSession(op) // operators see both pages
	text := func(path string) string {
		t.Helper()
		p := b.get(path)
		if p.status != http.StatusOK {
			t.Fatalf("%s: %d", path, p.status)
		}
		return usageText(p.body)
	}
	if u, cv := text("/usage"), text("/conversations/"+c.ID); strings.Contains(u, "tokens") || strings.Contains(cv, "tokens") {
		t.Fatalf("tokens shown before any:\n%s\n%s", u, cv)
	}

	add := func(role domain.Role, at time.Time, tok domain.Tokens) {
		t.Helper()
		if _, _, err := td.st.AddMessage(ctx, store.NewMessage{ConversationID: c.ID, Role: role, Text: "x", CreatedAt: at, Tokens: tok}); err != nil {
			t.Fatal(err)
		}
	}
	add(domain.RoleVisitor, lastMonth, domain.Tokens{})
	add(domain.RoleAI, lastMonth, domain.Tokens{Prompt: 800, Completion: 20}) // counts in last month's usage only
	add(domain.RoleVisitor, usageNow, domain.Tokens{})
	add(domain.RoleAI, usageNow, domain.Tokens{Prompt: 1200, Completion: 35})

	if u := text("/usage"); !strings.Contains(u, "LLM tokens this month 1200 prompt, 35 completion") {
		t.Errorf("usage page:\n%s", u)
	}
	if cv := text("/conversations/" + c.ID); !strings.Contains(cv, "LLM tokens 2000 prompt, 55 completion") {
		t.Errorf("conversation page:\n%s", cv)
	}
	for lang, want := range map[string]string{
		"ro": "Tokeni LLM luna aceasta 1200 în prompt, 35 în răspuns",
		"ru": "Токены LLM за этот месяц 1200 в запросе, 35 в ответе",
	} {
		req, _ := http.NewRequest("GET", td.srv.URL+"/usage", nil)
		req.Header.Set("Accept-Language", lang)
		if p := b.do(req); !strings.Contains(usageText(p.body), want) {
			t.Errorf("%s: the usage page lacks %q", lang, want)
		}
	}
}
