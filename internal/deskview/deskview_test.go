package deskview

import (
	"context"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
	"parley/internal/store/sqlite"
	"parley/internal/store/sqlite/sqlitetest"
)

// Details: the browser named from the User-Agent, the visitor's clock in
// their zone at the service's time (none for an unknown zone), and the
// visitor's first conversation and count.
func TestDetails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, ag := open(t)
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	svc := New(st, func() time.Time { return at })
	newConv := func(visitor string, created time.Time) domain.Conversation {
		t.Helper()
		c, err := st.CreateConversation(ctx, store.NewConversation{ID: secret.ConversationID(), AgentID: ag.ID, AccountID: ag.AccountID, VisitorID: visitor, CreatedAt: created})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	newConv("v_ana", at.Add(-48*time.Hour))
	c := newConv("v_ana", at.Add(-time.Hour))
	if err := st.SetVisitorContext(ctx, c.ID, store.VisitorContext{
		UserAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
		TimeZone:  "Europe/Moscow", Language: "ru",
	}); err != nil {
		t.Fatal(err)
	}
	d, err := svc.Details(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if d.Agent.String() != "Safari 18 · iOS" || d.Language != "ru" {
		t.Errorf("browser %q, language %q", d.Agent.String(), d.Language)
	}
	if got := d.LocalTime.Format("15:04 MST"); got != "13:00 MSK" {
		t.Errorf("local time %q, want 13:00 MSK", got)
	}
	if d.Count != 2 || !d.FirstSeen.Equal(at.Add(-48*time.Hour)) {
		t.Errorf("first seen %v, count %d", d.FirstSeen, d.Count)
	}

	if err := st.SetVisitorContext(ctx, c.ID, store.VisitorContext{TimeZone: "Mars/Olympus"}); err != nil {
		t.Fatal(err)
	}
	if d, err := svc.Details(ctx, c); err != nil || !d.LocalTime.IsZero() || d.Agent.String() != "" {
		t.Errorf("unknown zone: %v, %q, %v", d.LocalTime, d.Agent.String(), err)
	}
}

// Seen moves the mark to the newest message shown; the unread count
// follows. A seq of 0 (nothing shown) records nothing.
func TestSeenAndUnread(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, ag := open(t)
	svc := New(st, nil)
	u, err := st.CreateUser(ctx, store.NewUser{AccountID: ag.AccountID, Email: "op@example.test", Name: "Op", PasswordHash: "x", Role: domain.UserOperator})
	if err != nil {
		t.Fatal(err)
	}
	c, err := st.CreateConversation(ctx, store.NewConversation{ID: secret.ConversationID(), AgentID: ag.ID, AccountID: ag.AccountID, VisitorID: "v_1", CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := st.AddMessage(ctx, store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "hi", CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Seen(ctx, u.ID, c.ID, 0); err != nil {
		t.Fatal(err)
	}
	if n, _ := svc.Unread(ctx, u.ID, []string{c.ID}); n[c.ID] != 1 {
		t.Errorf("unread before: %v", n)
	}
	if err := svc.Seen(ctx, u.ID, c.ID, m.Seq); err != nil {
		t.Fatal(err)
	}
	if n, _ := svc.Unread(ctx, u.ID, []string{c.ID}); n[c.ID] != 0 {
		t.Errorf("unread after: %v", n)
	}
}

// open is a store of the test's own with an account that may start
// conversations and its agent.
func open(t *testing.T) (*sqlite.Store, domain.Agent) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, sqlitetest.Path(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	acc, err := st.CreateAccount(ctx, store.NewAccount{Email: "o@example.test", Name: "Owner", PasswordHash: "x", Limits: domain.Limits{MonthlyConversations: 100}})
	if err != nil {
		t.Fatal(err)
	}
	ag, err := st.CreateAgent(ctx, store.NewAgent{AccountID: acc.ID, ChatbotName: "Ana"})
	if err != nil {
		t.Fatal(err)
	}
	return st, ag
}
