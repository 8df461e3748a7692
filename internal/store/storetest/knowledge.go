package storetest

import (
	"testing"

	"parley/internal/domain"
	"parley/internal/store"
)

// unbounded is no knowledge bound at all.
var unbounded domain.KnowledgeLimits

func testKnowledgeItems(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	other := setup(t, s, many)
	version := func() domain.Agent {
		a, err := s.Agent(ctx, f.account.ID, f.agent.ID)
		noErr(t, "Agent", err)
		return a
	}
	v0 := version()

	qa, err := s.AddKnowledge(ctx, f.account.ID, f.agent.ID, domain.KnowledgeEntry{Question: "Hours?", Answer: "9-5", Lang: "en"}, unbounded)
	noErr(t, "AddKnowledge qa", err)
	doc, err := s.AddKnowledge(ctx, f.account.ID, f.agent.ID, domain.KnowledgeEntry{
		Kind: domain.KindDocument, Title: "Shipping", Text: "# Shipping\n\nWe ship to Moldova.\n\nÎn toată România.", Lang: "",
	}, unbounded)
	noErr(t, "AddKnowledge document", err)
	if qa.ID == "" || doc.ID == "" || qa.ID == doc.ID || qa.Kind != domain.KindQA {
		t.Fatalf("added %+v and %+v", qa, doc)
	}
	v1 := version()
	if !v1.UpdatedAt.After(v0.UpdatedAt) {
		t.Fatalf("adding knowledge did not bump the agent's UpdatedAt (%v → %v)", v0.UpdatedAt, v1.UpdatedAt)
	}
	kb, err := s.Knowledge(ctx, f.agent.ID)
	noErr(t, "Knowledge", err)
	if len(kb) != 2 || kb[0] != qa || kb[1] != doc {
		t.Fatalf("Knowledge = %+v, want the two items in order", kb)
	}

	doc.Text = "We ship everywhere."
	doc.Lang = "en"
	got, err := s.UpdateKnowledge(ctx, f.account.ID, f.agent.ID, doc, unbounded)
	noErr(t, "UpdateKnowledge", err)
	kb, _ = s.Knowledge(ctx, f.agent.ID)
	if got != doc || kb[1] != doc {
		t.Fatalf("after update: %+v / %+v, want %+v", got, kb[1], doc)
	}
	v2 := version()
	if !v2.UpdatedAt.After(v1.UpdatedAt) {
		t.Fatal("updating knowledge did not bump the agent's UpdatedAt")
	}

	// Another account, a missing item, a missing agent: not found, no bump.
	_, err = s.AddKnowledge(ctx, other.account.ID, f.agent.ID, domain.KnowledgeEntry{Question: "q", Answer: "a"}, unbounded)
	wantErr(t, "AddKnowledge other account", err, domain.ErrNotFound)
	_, err = s.UpdateKnowledge(ctx, other.account.ID, f.agent.ID, doc, unbounded)
	wantErr(t, "UpdateKnowledge other account", err, domain.ErrNotFound)
	_, err = s.UpdateKnowledge(ctx, f.account.ID, f.agent.ID, domain.KnowledgeEntry{ID: "kb_missing", Question: "q", Answer: "a"}, unbounded)
	wantErr(t, "UpdateKnowledge missing item", err, domain.ErrNotFound)
	wantErr(t, "DeleteKnowledge other account", s.DeleteKnowledge(ctx, other.account.ID, f.agent.ID, qa.ID), domain.ErrNotFound)
	wantErr(t, "DeleteKnowledge item of another agent", s.DeleteKnowledge(ctx, other.account.ID, other.agent.ID, qa.ID), domain.ErrNotFound)
	if v := version(); !v.UpdatedAt.Equal(v2.UpdatedAt) {
		t.Fatal("a refused change bumped the agent's UpdatedAt")
	}

	noErr(t, "DeleteKnowledge", s.DeleteKnowledge(ctx, f.account.ID, f.agent.ID, qa.ID))
	wantErr(t, "DeleteKnowledge twice", s.DeleteKnowledge(ctx, f.account.ID, f.agent.ID, qa.ID), domain.ErrNotFound)
	kb, _ = s.Knowledge(ctx, f.agent.ID)
	if len(kb) != 1 || kb[0].ID != doc.ID {
		t.Fatalf("after delete: %+v", kb)
	}
	// New items go after the existing ones.
	last, err := s.AddKnowledge(ctx, f.account.ID, f.agent.ID, domain.KnowledgeEntry{Question: "Last?", Answer: "Yes"}, unbounded)
	noErr(t, "AddKnowledge", err)
	kb, _ = s.Knowledge(ctx, f.agent.ID)
	if len(kb) != 2 || kb[1].ID != last.ID {
		t.Fatalf("order after add: %+v", kb)
	}
}

// Edits in quick succession each give the agent a new version.
func testAgentVersionStrictlyIncreases(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	prev := f.agent.UpdatedAt
	for i := range 5 {
		name := "Bot " + string(rune('A'+i))
		a, err := s.UpdateAgent(ctx, f.account.ID, f.agent.ID, store.AgentPatch{ChatbotName: &name})
		noErr(t, "UpdateAgent", err)
		if !a.UpdatedAt.After(prev) {
			t.Fatalf("edit %d: UpdatedAt %v not after %v", i, a.UpdatedAt, prev)
		}
		prev = a.UpdatedAt
	}
}

func testWaitingAndMisses(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	c := f.conversation(t, s, base)
	quiet := f.conversation(t, s, base.Add(1))

	ai := func(unanswered bool) domain.Conversation {
		t.Helper()
		_, conv, err := s.AddMessage(ctx, store.NewMessage{ConversationID: c.ID, Role: domain.RoleAI, Text: "…", Unanswered: unanswered})
		noErr(t, "AddMessage", err)
		return conv
	}
	if got := ai(true); got.Misses != 1 {
		t.Fatalf("Misses after one miss = %d", got.Misses)
	}
	// A visitor message does not reset the count; a second miss makes two.
	_, conv, err := s.AddMessage(ctx, store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "?"})
	noErr(t, "AddMessage visitor", err)
	if conv.Misses != 1 || conv.LastMessage != "?" || conv.Mode != domain.ModeAI {
		t.Fatalf("conversation after a visitor message: %+v", conv)
	}
	if got := ai(true); got.Misses != 2 {
		t.Fatalf("Misses after two misses = %d", got.Misses)
	}
	if got := ai(false); got.Misses != 0 {
		t.Fatalf("an answer did not reset Misses: %d", got.Misses)
	}

	changed, err := s.SetWaiting(ctx, c.ID, true)
	noErr(t, "SetWaiting", err)
	if !changed {
		t.Fatal("SetWaiting(true) reported no change")
	}
	if changed, _ := s.SetWaiting(ctx, c.ID, true); changed {
		t.Fatal("SetWaiting(true) twice reported a change")
	}
	_, err = s.SetWaiting(ctx, "cv_missing", true)
	wantErr(t, "SetWaiting missing", err, domain.ErrNotFound)

	yes, no := true, false
	page, err := s.Conversations(ctx, f.account.ID, store.ConversationFilter{Waiting: &yes})
	noErr(t, "Conversations waiting", err)
	if len(page.Conversations) != 1 || page.Conversations[0].ID != c.ID || !page.Conversations[0].Waiting {
		t.Fatalf("waiting filter: %+v", page.Conversations)
	}
	page, _ = s.Conversations(ctx, f.account.ID, store.ConversationFilter{Waiting: &no})
	if len(page.Conversations) != 1 || page.Conversations[0].ID != quiet.ID {
		t.Fatalf("not-waiting filter: %+v", page.Conversations)
	}

	// A takeover ends the wait, and so does an operator's reply.
	_, err = s.SetMode(ctx, c.ID, domain.ModeHuman)
	noErr(t, "SetMode", err)
	if got, _ := s.Conversation(ctx, c.ID); got.Waiting {
		t.Fatal("takeover did not end the wait")
	}
	_, err = s.SetWaiting(ctx, quiet.ID, true)
	noErr(t, "SetWaiting", err)
	_, conv, err = s.AddMessage(ctx, store.NewMessage{ConversationID: quiet.ID, Role: domain.RoleOperator, Text: "hi", OperatorName: "Ana", SetMode: domain.ModeHuman})
	noErr(t, "AddMessage operator", err)
	if conv.Waiting || conv.Mode != domain.ModeHuman {
		t.Fatalf("operator reply: %+v", conv)
	}
	if got, _ := s.Conversation(ctx, quiet.ID); got.Waiting {
		t.Fatal("operator reply did not end the wait in the store")
	}

	// An AI message can start the wait in its own transaction: the
	// handoff message and the wait are stored together.
	asked := f.conversation(t, s, base.Add(2))
	_, conv, err = s.AddMessage(ctx, store.NewMessage{ConversationID: asked.ID, Role: domain.RoleAI, Text: "A person will answer.",
		RequireMode: domain.ModeAI, Unanswered: true, SetWaiting: true})
	noErr(t, "AddMessage with SetWaiting", err)
	if !conv.Waiting || conv.Misses != 1 || conv.Mode != domain.ModeAI {
		t.Fatalf("AddMessage with SetWaiting returned %+v", conv)
	}
	if got, _ := s.Conversation(ctx, asked.ID); !got.Waiting || got.LastMessage != "A person will answer." {
		t.Fatalf("AddMessage with SetWaiting stored %+v", got)
	}
	if changed, _ := s.SetWaiting(ctx, asked.ID, true); changed {
		t.Fatal("SetWaiting(true) after AddMessage with SetWaiting reported a change")
	}
	// A message that leaves the conversation human-handled does not start
	// a wait, and one refused by RequireMode changes nothing.
	_, conv, err = s.AddMessage(ctx, store.NewMessage{ConversationID: quiet.ID, Role: domain.RoleVisitor, Text: "?", SetWaiting: true})
	noErr(t, "AddMessage visitor with SetWaiting in human mode", err)
	if conv.Waiting {
		t.Fatalf("a human-handled conversation started waiting: %+v", conv)
	}
	_, _, err = s.AddMessage(ctx, store.NewMessage{ConversationID: quiet.ID, Role: domain.RoleAI, Text: "late",
		RequireMode: domain.ModeAI, SetWaiting: true})
	wantErr(t, "AddMessage AI after takeover", err, domain.ErrModeChanged)
	if got, _ := s.Conversation(ctx, quiet.ID); got.Waiting || got.LastMessage == "late" {
		t.Fatalf("a refused AI message changed the conversation: %+v", got)
	}
}
