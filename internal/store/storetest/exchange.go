package storetest

import (
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

// testAddExchange: a visitor's message and the reply are stored together,
// in order, with the conversation updated as two AddMessage calls would;
// a reply the conversation no longer admits (an operator took over) is
// left out while the visitor's message is kept; a refused visitor message
// stores nothing.
func testAddExchange(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)

	visitor := func(id, text string) store.NewMessage {
		return store.NewMessage{ConversationID: id, Role: domain.RoleVisitor, Text: text, CreatedAt: base}
	}
	reply := func(id, text string, unanswered, wait bool) store.NewMessage {
		return store.NewMessage{ConversationID: id, Role: domain.RoleAI, Text: text, CreatedAt: base.Add(time.Millisecond),
			RequireMode: domain.ModeAI, Unanswered: unanswered, SetWaiting: wait}
	}

	// Both stored; the conversation is as after both.
	c := f.conversation(t, s, base)
	conv, replySeq, err := s.AddExchange(ctx, visitor(c.ID, "hours?"), reply(c.ID, "9 to 18", false, false))
	noErr(t, "AddExchange", err)
	if replySeq == 0 || conv.Mode != domain.ModeAI || conv.LastMessage != "9 to 18" || conv.Misses != 0 || conv.Waiting {
		t.Errorf("AddExchange = %+v, reply seq %d", conv, replySeq)
	}
	ms := messages(t, s, c.ID)
	if len(ms) != 2 || ms[0].Role != domain.RoleVisitor || ms[0].Text != "hours?" || ms[1].Role != domain.RoleAI || ms[1].Text != "9 to 18" || ms[1].Seq <= ms[0].Seq {
		t.Fatalf("messages %+v", ms)
	}
	// The seq returned is the reply's, not the visitor message's: the
	// widget's "message_id" the visitor's thumbs name.
	if replySeq != ms[1].Seq {
		t.Errorf("AddExchange returned reply seq %d, the reply is %d (the visitor's %d)", replySeq, ms[1].Seq, ms[0].Seq)
	}
	sameTime(t, "reply CreatedAt", ms[1].CreatedAt, base.Add(time.Millisecond))
	if got, err := s.Conversation(ctx, c.ID); err != nil || got != conv {
		t.Errorf("stored conversation %+v (%v), returned %+v", got, err, conv)
	}

	// Misses and the wait for a human follow the reply, as with AddMessage.
	conv, _, err = s.AddExchange(ctx, visitor(c.ID, "??"), reply(c.ID, "don't know", true, false))
	noErr(t, "AddExchange miss", err)
	if conv.Misses != 1 || conv.Waiting {
		t.Errorf("after a miss: %+v", conv)
	}
	conv, _, err = s.AddExchange(ctx, visitor(c.ID, "???"), reply(c.ID, "asking a person", true, true))
	noErr(t, "AddExchange handoff", err)
	if conv.Misses != 2 || !conv.Waiting {
		t.Errorf("after a handoff: %+v", conv)
	}

	// Taken over: the visitor's message is stored, the reply is not.
	_, err = s.SetMode(ctx, c.ID, domain.ModeHuman)
	noErr(t, "SetMode", err)
	conv, replySeq, err = s.AddExchange(ctx, visitor(c.ID, "hello?"), reply(c.ID, "late", false, false))
	noErr(t, "AddExchange after takeover", err)
	if replySeq != 0 || conv.Mode != domain.ModeHuman || conv.LastMessage != "hello?" {
		t.Errorf("after takeover: %+v, reply seq %d", conv, replySeq)
	}
	if ms := messages(t, s, c.ID); len(ms) != 7 || ms[6].Text != "hello?" {
		t.Errorf("after takeover, messages %+v", ms)
	}

	// A visitor message the conversation refuses stores nothing.
	other := f.conversation(t, s, base)
	bad := visitor(other.ID, "x")
	bad.RequireMode = domain.ModeHuman
	_, _, err = s.AddExchange(ctx, bad, reply(other.ID, "y", false, false))
	wantErr(t, "AddExchange refused", err, domain.ErrModeChanged)
	if ms := messages(t, s, other.ID); len(ms) != 0 {
		t.Errorf("refused exchange stored %+v", ms)
	}
	_, _, err = s.AddExchange(ctx, visitor(secret.ConversationID(), "x"), reply("", "y", false, false))
	wantErr(t, "AddExchange missing conversation", err, domain.ErrNotFound)
}
