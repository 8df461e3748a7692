package storetest

import (
	"testing"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

// testPollState: a conversation's poll state follows every write that can
// change it — operator messages, takeovers, mode changes, a deleted
// operator's conversations going back to the AI, resolving and reopening
// (its status, issue 19) — and ignores the ones
// that cannot. It is read before every write, so a store that caches it
// must forget what each write changes.
func testPollState(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	c := f.conversation(t, s, base)
	status := domain.StatusOpen
	want := func(what string, mode domain.Mode, lastOp int64) {
		t.Helper()
		st, err := s.PollState(ctx, c.ID)
		noErr(t, "PollState "+what, err)
		if st != (store.PollState{AgentID: f.agent.ID, Mode: mode, LastOperatorSeq: lastOp, Status: status}) {
			t.Fatalf("%s: PollState = %+v, want agent %s, %s, last operator message %d, %s", what, st, f.agent.ID, mode, lastOp, status)
		}
	}
	want("new", domain.ModeAI, 0)
	add(t, s, store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "hi"})
	_, _, err := s.AddExchange(ctx, store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "?"},
		store.NewMessage{ConversationID: c.ID, Role: domain.RoleAI, Text: "!", RequireMode: domain.ModeAI})
	noErr(t, "AddExchange", err)
	want("after visitor and AI messages", domain.ModeAI, 0)

	op, _ := add(t, s, store.NewMessage{ConversationID: c.ID, Role: domain.RoleOperator, Text: "I'm here", OperatorName: "Ana", SetMode: domain.ModeHuman})
	want("after an operator's reply", domain.ModeHuman, op.Seq)
	add(t, s, store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "thanks"})
	want("after the visitor's answer", domain.ModeHuman, op.Seq)

	_, err = s.SetMode(ctx, c.ID, domain.ModeAI)
	noErr(t, "SetMode ai", err)
	want("handed back", domain.ModeAI, op.Seq)
	_, err = s.SetMode(ctx, c.ID, domain.ModeHuman)
	noErr(t, "SetMode human", err)
	want("taken by SetMode", domain.ModeHuman, op.Seq)
	_, err = s.SetStatus(ctx, c.ID, domain.StatusResolved)
	noErr(t, "SetStatus resolved", err)
	status = domain.StatusResolved
	want("resolved", domain.ModeHuman, op.Seq)
	_, err = s.SetStatus(ctx, c.ID, domain.StatusOpen)
	noErr(t, "SetStatus open", err)
	status = domain.StatusOpen
	want("reopened", domain.ModeHuman, op.Seq)
	_, err = s.SetMode(ctx, c.ID, domain.ModeAI)
	noErr(t, "SetMode ai", err)
	want("handed back again", domain.ModeAI, op.Seq)

	user, err := s.CreateUser(ctx, store.NewUser{AccountID: f.account.ID, Email: "op-" + f.account.ID + "@example.com", Name: "Oleg", PasswordHash: "h", Role: domain.UserOperator})
	noErr(t, "CreateUser", err)
	_, won, err := s.TakeOver(ctx, c.ID, user.ID, user.Name)
	noErr(t, "TakeOver", err)
	if !won {
		t.Fatal("TakeOver lost")
	}
	want("taken over", domain.ModeHuman, op.Seq)
	op2, _ := add(t, s, store.NewMessage{ConversationID: c.ID, Role: domain.RoleOperator, Text: "more", OperatorName: "Oleg"})
	want("after a second operator message", domain.ModeHuman, op2.Seq)
	noErr(t, "DeleteUser", s.DeleteUser(ctx, f.account.ID, user.ID))
	want("its operator deleted", domain.ModeAI, op2.Seq)

	_, err = s.PollState(ctx, secret.ConversationID())
	wantErr(t, "PollState of no conversation", err, domain.ErrNotFound)
}
