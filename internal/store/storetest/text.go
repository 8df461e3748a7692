package storetest

import (
	"encoding/json"
	"errors"
	"testing"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

// testBadText: text with a NUL character or invalid UTF-8, given to a
// store to keep or to look up, is refused with store.ErrBadText (an
// *domain.InvalidError, a 400) by every store, and nothing is written.
// PostgreSQL cannot store such text; SQLite could, and must not, so that
// the two answer alike.
func testBadText(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	c := f.conversation(t, s, base)
	u := newUser(t, s, f.account.ID, domain.UserOperator)
	item, err := s.AddKnowledge(ctx, f.account.ID, f.agent.ID, domain.KnowledgeEntry{Question: "q?", Answer: "a."}, domain.KnowledgeLimits{})
	noErr(t, "AddKnowledge", err)
	const nul = "a\x00b"
	const notUTF8 = "a\xffb"
	msg := func(text, name string) store.NewMessage {
		return store.NewMessage{ConversationID: c.ID, Role: domain.RoleOperator, Text: text, OperatorName: name}
	}
	calls := []struct {
		name string
		call func() error
	}{
		{"CreateAccount email", func() error {
			_, err := s.CreateAccount(ctx, store.NewAccount{Email: "x" + nul + "@example.com", Name: "N", PasswordHash: "h"})
			return err
		}},
		{"CreateAccount name", func() error {
			_, err := s.CreateAccount(ctx, store.NewAccount{Email: secret.ID("n", 6) + "@example.com", Name: nul, PasswordHash: "h"})
			return err
		}},
		{"CreateAccount name not UTF-8", func() error {
			_, err := s.CreateAccount(ctx, store.NewAccount{Email: secret.ID("n", 6) + "@example.com", Name: notUTF8, PasswordHash: "h"})
			return err
		}},
		{"AccountByEmail", func() error { _, err := s.AccountByEmail(ctx, nul+"@example.com"); return err }},
		{"UserByEmail", func() error { _, err := s.UserByEmail(ctx, nul+"@example.com"); return err }},
		{"CreateUser name", func() error {
			_, err := s.CreateUser(ctx, store.NewUser{AccountID: f.account.ID, Email: secret.ID("u", 6) + "@example.com", Name: nul, PasswordHash: "h", Role: domain.UserOperator})
			return err
		}},
		{"CreateAPIToken name", func() error {
			_, err := s.CreateAPIToken(ctx, f.account.ID, nul, secret.HashToken(secret.APIToken()))
			return err
		}},
		{"CreateAgent name", func() error {
			_, err := s.CreateAgent(ctx, store.NewAgent{AccountID: f.account.ID, ChatbotName: nul, Key: secret.WidgetKey()})
			return err
		}},
		{"CreateAgent config", func() error {
			_, err := s.CreateAgent(ctx, store.NewAgent{AccountID: f.account.ID, ChatbotName: "B", Config: json.RawMessage(`{"greeting":"hi\u0000"}`), Key: secret.WidgetKey()})
			return err
		}},
		{"CreateAgent knowledge", func() error {
			_, err := s.CreateAgent(ctx, store.NewAgent{AccountID: f.account.ID, ChatbotName: "B", Key: secret.WidgetKey(),
				Knowledge: []domain.KnowledgeEntry{{Question: "q" + nul, Answer: "a"}}})
			return err
		}},
		{"UpdateAgent name", func() error {
			name := nul
			_, err := s.UpdateAgent(ctx, f.account.ID, f.agent.ID, store.AgentPatch{ChatbotName: &name})
			return err
		}},
		{"UpdateAgent config", func() error {
			_, err := s.UpdateAgent(ctx, f.account.ID, f.agent.ID, store.AgentPatch{Config: json.RawMessage(`{"a":["\u0000"]}`)})
			return err
		}},
		{"AddKnowledge", func() error {
			_, err := s.AddKnowledge(ctx, f.account.ID, f.agent.ID, domain.KnowledgeEntry{Kind: domain.KindDocument, Title: "t", Text: "x" + nul}, domain.KnowledgeLimits{})
			return err
		}},
		{"UpdateKnowledge", func() error {
			_, err := s.UpdateKnowledge(ctx, f.account.ID, f.agent.ID, domain.KnowledgeEntry{ID: item.ID, Question: "q", Answer: nul}, domain.KnowledgeLimits{})
			return err
		}},
		{"AgentByKey", func() error { _, err := s.AgentByKey(ctx, "wk_"+nul); return err }},
		{"CreateConversation visitor", func() error {
			n := f.newConversation(base)
			n.VisitorID = nul
			_, err := s.CreateConversation(ctx, n)
			return err
		}},
		{"CreateConversation page", func() error {
			n := f.newConversation(base)
			n.PageURL = "https://example.com/" + nul
			_, err := s.CreateConversation(ctx, n)
			return err
		}},
		{"Conversation", func() error { _, err := s.Conversation(ctx, "cv_"+nul); return err }},
		{"Conversations search", func() error {
			_, err := s.Conversations(ctx, f.account.ID, store.ConversationFilter{Search: nul})
			return err
		}},
		{"AddMessage text", func() error { _, _, err := s.AddMessage(ctx, msg(nul, "Olga")); return err }},
		{"AddMessage operator name", func() error { _, _, err := s.AddMessage(ctx, msg("hi", nul)); return err }},
		{"AddExchange", func() error {
			_, _, err := s.AddExchange(ctx, store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "q"},
				store.NewMessage{ConversationID: c.ID, Role: domain.RoleAI, Text: nul})
			return err
		}},
		{"TakeOver name", func() error { _, _, err := s.TakeOver(ctx, c.ID, u.ID, nul); return err }},
		{"SetPassword", func() error { return s.SetPassword(ctx, u.ID, nul) }},
	}
	for _, tt := range calls {
		err := tt.call()
		var invalid *domain.InvalidError
		if !errors.Is(err, store.ErrBadText) || !errors.As(err, &invalid) {
			t.Errorf("%s: error %v, want store.ErrBadText", tt.name, err)
		}
	}

	// Nothing was written: the conversation is as it was, with no
	// messages, the agent and its knowledge unchanged.
	got, err := s.Conversation(ctx, c.ID)
	noErr(t, "Conversation", err)
	if got.Mode != domain.ModeAI || got.AssigneeID != "" || len(messages(t, s, c.ID)) != 0 {
		t.Errorf("a refused write changed the conversation: %+v", got)
	}
	ag, err := s.Agent(ctx, f.account.ID, f.agent.ID)
	noErr(t, "Agent", err)
	if ag.ChatbotName != f.agent.ChatbotName || string(ag.Config.JSON()) != string(f.agent.Config.JSON()) {
		t.Errorf("a refused update changed the agent: %+v", ag)
	}
	kb, err := s.Knowledge(ctx, f.agent.ID)
	noErr(t, "Knowledge", err)
	if len(kb) != 1 || kb[0].Answer != "a." {
		t.Errorf("knowledge after refused writes: %+v", kb)
	}
	page, err := s.Conversations(ctx, f.account.ID, store.ConversationFilter{})
	noErr(t, "Conversations", err)
	if len(page.Conversations) != 1 {
		t.Errorf("%d conversations, want the one", len(page.Conversations))
	}
	if u := usage(t, s, f.account.ID, base.Format("2006-01")); u.Conversations != 1 {
		t.Errorf("usage %d conversations: a refused conversation was counted", u.Conversations)
	}
}
