package storetest

import (
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// testVisitors: a visitor's data is their conversations in the account,
// oldest first, each with its whole transcript (tokens included); another
// visitor's and another account's are not in it. Deleting the visitor
// removes exactly those conversations and their messages: afterwards
// every read of them, cached ones included (they are read before the
// delete so a caching store holds them), finds nothing, and the rest stay.
func testVisitors(t *testing.T, s store.Store) {
	ctx := t.Context()
	a := setup(t, s, many)
	b := setup(t, s, many)

	newConv := func(f fixture, visitor string, at time.Time) domain.Conversation {
		t.Helper()
		n := f.newConversation(at)
		n.VisitorID = visitor
		c, err := s.CreateConversation(ctx, n)
		noErr(t, "CreateConversation", err)
		return c
	}
	const visitor = "v_privacy"
	later := newConv(a, visitor, base.Add(time.Hour))
	earlier := newConv(a, visitor, base)
	otherVisitor := newConv(a, "v_someone_else", base)
	otherAccount := newConv(b, visitor, base) // the same visitor id on another account's site

	add(t, s, store.NewMessage{ConversationID: earlier.ID, Role: domain.RoleVisitor, Text: "my email is ana@example.com", CreatedAt: base})
	add(t, s, store.NewMessage{ConversationID: earlier.ID, Role: domain.RoleAI, Text: "noted", CreatedAt: base.Add(time.Second),
		RequireMode: domain.ModeAI, Tokens: domain.Tokens{Prompt: 90, Completion: 4}})
	add(t, s, store.NewMessage{ConversationID: later.ID, Role: domain.RoleVisitor, Text: "hello again", CreatedAt: base.Add(time.Hour)})
	add(t, s, store.NewMessage{ConversationID: otherVisitor.ID, Role: domain.RoleVisitor, Text: "not theirs", CreatedAt: base})
	add(t, s, store.NewMessage{ConversationID: otherAccount.ID, Role: domain.RoleVisitor, Text: "another site", CreatedAt: base})

	got, err := s.VisitorData(ctx, a.account.ID, visitor)
	noErr(t, "VisitorData", err)
	if len(got) != 2 || got[0].Conversation.ID != earlier.ID || got[1].Conversation.ID != later.ID {
		t.Fatalf("VisitorData conversations %+v, want %s then %s", got, earlier.ID, later.ID)
	}
	if c := got[0].Conversation; c.VisitorID != visitor || c.AccountID != a.account.ID || c.LastMessage != "noted" {
		t.Errorf("exported conversation %+v", c)
	}
	var texts []string
	for _, vc := range got {
		for _, m := range vc.Messages {
			if m.ConversationID != vc.Conversation.ID {
				t.Errorf("message %+v under conversation %s", m, vc.Conversation.ID)
			}
			texts = append(texts, m.Text)
		}
	}
	if want := []string{"my email is ana@example.com", "noted", "hello again"}; !equalStrings(texts, want) {
		t.Errorf("exported messages %q, want %q", texts, want)
	}
	if tk := got[0].Messages[1].Tokens; tk != (domain.Tokens{Prompt: 90, Completion: 4}) {
		t.Errorf("exported tokens %+v", tk)
	}
	other, err := s.VisitorData(ctx, b.account.ID, visitor)
	noErr(t, "VisitorData other account", err)
	if len(other) != 1 || other[0].Conversation.ID != otherAccount.ID || len(other[0].Messages) != 1 {
		t.Errorf("other account's data %+v", other)
	}
	_, err = s.VisitorData(ctx, a.account.ID, "v_unknown")
	wantErr(t, "VisitorData of an unknown visitor", err, domain.ErrNotFound)

	// Fill whatever a store caches of the conversations about to go.
	for _, c := range []domain.Conversation{earlier, later} {
		_, err := s.Conversation(ctx, c.ID)
		noErr(t, "Conversation", err)
		_, err = s.PollState(ctx, c.ID)
		noErr(t, "PollState", err)
	}

	wantErr(t, "DeleteVisitor of an unknown visitor", s.DeleteVisitor(ctx, a.account.ID, "v_unknown"), domain.ErrNotFound)
	noErr(t, "DeleteVisitor", s.DeleteVisitor(ctx, a.account.ID, visitor))
	wantErr(t, "DeleteVisitor again", s.DeleteVisitor(ctx, a.account.ID, visitor), domain.ErrNotFound)
	_, err = s.VisitorData(ctx, a.account.ID, visitor)
	wantErr(t, "VisitorData after the delete", err, domain.ErrNotFound)
	for _, c := range []domain.Conversation{earlier, later} {
		_, err := s.Conversation(ctx, c.ID)
		wantErr(t, "Conversation after the delete", err, domain.ErrNotFound)
		_, err = s.PollState(ctx, c.ID)
		wantErr(t, "PollState after the delete", err, domain.ErrNotFound)
		if ms := messages(t, s, c.ID); len(ms) != 0 {
			t.Errorf("messages of %s after the delete: %+v", c.ID, ms)
		}
		tk, err := s.ConversationTokens(ctx, c.ID)
		noErr(t, "ConversationTokens", err)
		if tk != (domain.Tokens{}) {
			t.Errorf("tokens of %s after the delete: %+v", c.ID, tk)
		}
		_, _, err = s.AddMessage(ctx, store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "back?", CreatedAt: base.Add(2 * time.Hour)})
		wantErr(t, "AddMessage to a deleted conversation", err, domain.ErrNotFound)
	}
	page, err := s.Conversations(ctx, a.account.ID, store.ConversationFilter{})
	noErr(t, "Conversations", err)
	if len(page.Conversations) != 1 || page.Conversations[0].ID != otherVisitor.ID {
		t.Errorf("account's conversations after the delete %+v, want only %s", page.Conversations, otherVisitor.ID)
	}
	if ms := messages(t, s, otherVisitor.ID); len(ms) != 1 {
		t.Errorf("another visitor's messages %+v", ms)
	}
	if ms := messages(t, s, otherAccount.ID); len(ms) != 1 {
		t.Errorf("another account's messages of the same visitor id %+v", ms)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
