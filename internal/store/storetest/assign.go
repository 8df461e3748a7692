package storetest

import (
	"testing"

	"parley/internal/domain"
	"parley/internal/store"
)

// testReplyAssigns: a dashboard user's reply to an AI-handled conversation
// takes it over and assigns it to them in the same write, as TakeOver
// would; a reply to a conversation another user holds keeps that holder.
func testReplyAssigns(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	c := f.conversation(t, s, base)
	if _, err := s.SetWaiting(ctx, c.ID, true); err != nil {
		t.Fatal(err)
	}
	_, got, err := s.AddMessage(ctx, store.NewMessage{
		ConversationID: c.ID, Role: domain.RoleOperator, Text: "I'm here", OperatorName: "Olga",
		SetMode: domain.ModeHuman, AssigneeID: "usr_olga", AssigneeName: "Olga",
	})
	noErr(t, "AddMessage", err)
	stored, err := s.Conversation(ctx, c.ID)
	noErr(t, "Conversation", err)
	for _, conv := range []domain.Conversation{got, stored} {
		if conv.Mode != domain.ModeHuman || conv.Waiting || conv.AssigneeID != "usr_olga" || conv.AssigneeName != "Olga" {
			t.Fatalf("after the reply: mode %s waiting %v assignee %q %q; want human, not waiting, usr_olga Olga",
				conv.Mode, conv.Waiting, conv.AssigneeID, conv.AssigneeName)
		}
	}

	// Another user's reply while Olga holds it: the holder stays.
	_, got, err = s.AddMessage(ctx, store.NewMessage{
		ConversationID: c.ID, Role: domain.RoleOperator, Text: "me too", OperatorName: "Ivan",
		SetMode: domain.ModeHuman, AssigneeID: "usr_ivan", AssigneeName: "Ivan",
	})
	noErr(t, "AddMessage", err)
	stored, err = s.Conversation(ctx, c.ID)
	noErr(t, "Conversation", err)
	for _, conv := range []domain.Conversation{got, stored} {
		if conv.AssigneeID != "usr_olga" || conv.AssigneeName != "Olga" {
			t.Fatalf("a second operator's reply reassigned the conversation to %q %q", conv.AssigneeID, conv.AssigneeName)
		}
	}

	// A reply through the API (no assignee) takes over without one.
	c2 := f.conversation(t, s, base)
	_, got, err = s.AddMessage(ctx, store.NewMessage{
		ConversationID: c2.ID, Role: domain.RoleOperator, Text: "hello", OperatorName: "Support", SetMode: domain.ModeHuman,
	})
	noErr(t, "AddMessage", err)
	if got.Mode != domain.ModeHuman || got.AssigneeID != "" {
		t.Fatalf("API reply: mode %s assignee %q", got.Mode, got.AssigneeID)
	}
}
