package canned_test

import (
	"errors"
	"os"
	"testing"
	"time"

	"parley/internal/audit"
	"parley/internal/canned"
	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
	"parley/internal/store/teststores"
)

var stores = teststores.New("canned")

func TestMain(m *testing.M) { code := m.Run(); stores.Close(); os.Exit(code) }

func account(t *testing.T, st store.Store) (domain.Account, domain.Conversation) {
	t.Helper()
	ctx := t.Context()
	a, err := st.CreateAccount(ctx, store.NewAccount{Email: secret.ID("c", 8) + "@example.com", Name: "O", PasswordHash: "h",
		Limits: domain.Limits{MonthlyConversations: 100}})
	if err != nil {
		t.Fatal(err)
	}
	ag, err := st.CreateAgent(ctx, store.NewAgent{AccountID: a.ID, ChatbotName: "Helper", Key: secret.WidgetKey()})
	if err != nil {
		t.Fatal(err)
	}
	c, err := st.CreateConversation(ctx, store.NewConversation{ID: secret.ConversationID(), AgentID: ag.ID, AccountID: a.ID,
		VisitorID: secret.VisitorID(), CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	return a, c
}

// TestService: the rule runs before the store, the store's bounds come
// through, and each change is in the audit log with its actor.
func TestService(t *testing.T) {
	t.Parallel()
	stores.Each(t, func(t *testing.T, st store.Store) {
		svc := &canned.Service{Store: st, Audit: audit.New(audit.Options{Store: st})}
		a, conv := account(t, st)
		b, _ := account(t, st)
		ctx := audit.WithActor(t.Context(), audit.Actor{Type: audit.ActorUser, ID: "u_1", Name: "ana@example.com"})

		if _, err := svc.Create(ctx, a.ID, canned.Input{Shortcut: "bad one", Language: "en", Text: "x"}); !errors.Is(err, canned.ErrShortcut) {
			t.Fatalf("bad shortcut: %v", err)
		}
		en, err := svc.Create(ctx, a.ID, canned.Input{Shortcut: "/Refund", Language: "en", Text: "Hi {{visitor.name|there}}, {{operator.name}} here."})
		if err != nil || en.Shortcut != "refund" {
			t.Fatalf("Create = %+v, %v", en, err)
		}
		if _, err := svc.Create(ctx, a.ID, canned.Input{Shortcut: "refund", Language: "en", Text: "again"}); !errors.Is(err, domain.ErrConflict) {
			t.Fatalf("a second refund/en: %v", err)
		}
		ro, err := svc.Create(ctx, a.ID, canned.Input{Shortcut: "refund", Language: "ro", Text: "Bună {{visitor.name}}"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Update(ctx, a.ID, ro.ID, canned.Input{Shortcut: "refund", Language: "ro", Text: "Bună ziua, {{visitor.name}}"}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Update(ctx, b.ID, ro.ID, canned.Input{Shortcut: "refund", Language: "ro", Text: "x"}); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("another account's update: %v", err)
		}
		sugg, err := svc.Suggestions(ctx, a.ID, "ro", canned.Vars{VisitorName: "Maria", OperatorName: "Ana"})
		if err != nil || len(sugg) != 1 || sugg[0].Text != "Bună ziua, Maria" {
			t.Fatalf("Suggestions(ro) = %+v, %v", sugg, err)
		}
		sugg, err = svc.Suggestions(ctx, a.ID, "ru", canned.Vars{OperatorName: "Ana"})
		if err != nil || len(sugg) != 1 || sugg[0].Text != "Hi there, Ana here." {
			t.Fatalf("Suggestions(ru) = %+v, %v", sugg, err)
		}
		if err := svc.Delete(ctx, a.ID, en.ID); err != nil {
			t.Fatal(err)
		}

		if _, err := svc.AddNote(ctx, a.ID, conv.ID, canned.Author{ID: "u_1", Name: "Ana"}, "  "); !errors.Is(err, canned.ErrNoteText) {
			t.Fatalf("empty note: %v", err)
		}
		if _, err := svc.AddNote(ctx, b.ID, conv.ID, canned.Author{ID: "u_2", Name: "Eve"}, "mine now"); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("a note on another account's conversation: %v", err)
		}
		n, err := svc.AddNote(ctx, a.ID, conv.ID, canned.Author{ID: "u_1", Name: "Ana"}, " Refund approved ")
		if err != nil || n.Text != "Refund approved" {
			t.Fatalf("AddNote = %+v, %v", n, err)
		}

		p, err := audit.New(audit.Options{Store: st}).List(ctx, a.ID, audit.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range p.Entries {
			if e.Actor != "ana@example.com" {
				t.Errorf("entry %s by %q", e.Action, e.Actor)
			}
			got = append(got, e.Action+" "+e.Target)
		}
		want := []string{
			"conversation.note conversation:" + conv.ID,
			"canned.delete canned:" + en.ID,
			"canned.update canned:" + ro.ID,
			"canned.create canned:" + ro.ID,
			"canned.create canned:" + en.ID,
		}
		if len(got) != len(want) {
			t.Fatalf("audit = %q, want %q", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("audit = %q, want %q", got, want)
			}
		}
		// Only the account's own entries: b's refused calls recorded nothing.
		pb, _ := audit.New(audit.Options{Store: st}).List(ctx, b.ID, audit.Filter{})
		if len(pb.Entries) != 0 {
			t.Fatalf("b's audit = %+v", pb.Entries)
		}
	})
}
