package llm

import (
	"context"
	"strings"
	"testing"

	"parley/internal/agent"
	"parley/internal/domain"
	"parley/internal/embed"
	"parley/internal/embed/embedtest"
	"parley/internal/store/sqlite"
	"parley/internal/store/sqlite/sqlitetest"
)

// An LLM agent with embeddings gets the passage found by meaning in its
// prompt, and cites the page it came from; BM25 alone would not have
// found it (agent.TestHybridFindsWhatBM25Misses).
func TestHybridPassageReachesThePrompt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, ag := sqlitetest.Agent(t,
		domain.KnowledgeEntry{Kind: domain.KindQA, Question: "Gift cards", Answer: "Bring a gift card to any reception desk.", Lang: "en"},
		domain.KnowledgeEntry{Kind: domain.KindQA, Question: "Back office hours", Answer: "Our back office is open 9 to 5.", Lang: "en"},
	)
	page := domain.KnowledgeEntry{Kind: domain.KindDocument, Title: "Pets", URL: "https://hotel.example/pets", Text: "Dogs and cats are welcome in every room.", Lang: "en"}
	src := withPage{Store: st, page: page}

	fakeEmbed := embedtest.New(t, 64)
	kb := agent.NewKB(src, agent.KBOptions{})
	t.Cleanup(kb.Stop)
	hybrid := agent.NewHybrid(agent.HybridOptions{
		KB: kb, Embedder: embed.New(embed.Config{BaseURL: fakeEmbed.BaseURL(), Model: "e"}, nil), Vectors: st,
	})
	if err := hybrid.EmbedAgent(ctx, ag.AccountID, ag.ID); err != nil {
		t.Fatal(err)
	}

	lexical, err := kb.Passages(ctx, ag, "can I bring my puppy?", "en", passageCount)
	for _, p := range lexical {
		if err != nil || strings.Contains(p.Text, "Dogs") {
			t.Fatalf("BM25 alone found the page (%v): the test shows nothing", err)
		}
	}

	// The model cites the passage it used (by its number in the prompt), as
	// grounded answers do; only cited passages are sources.
	chat := newFakeServer(t, citing(`{"reply": "Yes, dogs are welcome [{Dogs and cats}].", "quick_replies": []}`))
	r := New(Config{BaseURL: chat.baseURL(), Model: "m"}, Deps{Passages: hybrid.Passages})
	req := testRequest()
	req.Agent, req.Text = ag, "can I bring my puppy?"
	got, err := respond(t, r, req)
	if err != nil {
		t.Fatal(err)
	}
	system := chat.requests()[0].Body.Messages[0]
	if system.Role != "system" || !strings.Contains(system.Content, "Dogs and cats are welcome") {
		t.Fatalf("the system message lacks the passage found by meaning:\n%s", system.Content)
	}
	if len(got.Sources) != 1 || got.Sources[0] != (domain.SourceRef{Title: "Pets", URL: "https://hotel.example/pets"}) {
		t.Fatalf("sources %+v, want the pets page", got.Sources)
	}
}

// withPage is the store's knowledge with one website page added, as
// sources.Knowledge adds an agent's pages.
type withPage struct {
	*sqlite.Store
	page domain.KnowledgeEntry
}

func (w withPage) Knowledge(ctx context.Context, agentID string) ([]domain.KnowledgeEntry, error) {
	es, err := w.Store.Knowledge(ctx, agentID)
	return append(es, w.page), err
}
