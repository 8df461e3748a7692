package chat

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"parley/internal/agent"
	"parley/internal/agent/llm"
	"parley/internal/domain"
)

// llmBackend is an OpenAI-compatible server answering the n-th chat
// completion with contents[n] and a usage of (n+1)×100 prompt and (n+1)×10
// completion tokens.
func llmBackend(t *testing.T, contents ...string) string {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1) - 1)
		if r.URL.Path != "/v1/chat/completions" || i >= len(contents) {
			http.Error(w, "unexpected", http.StatusNotFound)
			return
		}
		b, _ := json.Marshal(map[string]any{
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": contents[i]}}},
			"usage":   map[string]any{"prompt_tokens": (i + 1) * 100, "completion_tokens": (i + 1) * 10},
		})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// Each reply of an LLM agent is stored with the tokens the backend counted,
// and they add up per conversation and per month. The model's "don't know"
// counts as a miss, and when the second miss in a row is replaced by the
// handoff message, that message still carries what the model's answer
// cost.
func TestChatStoresTokenUsage(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: handoffConfig})
	base := llmBackend(t,
		`{"reply": "We open at 9.", "unanswered": false}`,
		`{"reply": "[NO_ANSWER] I don't know that.", "unanswered": true}`,
		`[NO_ANSWER]`,
	)
	responder := llm.New(llm.Config{BaseURL: base, Model: "m"}, llm.Deps{})
	svc := New(Options{Store: f.store, Responder: responder, Notifier: f.notes, Now: f.clock.Now, Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(svc.Stop)
	conv := f.init()
	var results []ChatResult
	for _, text := range []string{"when do you open?", "do you sell bikes?", "and scooters?"} {
		res, err := svc.Chat(f.ctx, ChatInput{Key: f.key, ConversationID: conv, Text: text})
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, res)
	}
	if results[1].Response != "I don't know that." || results[2].Response != "A person is coming." {
		t.Errorf("responses %+v", results)
	}
	if c := f.conv(conv); !c.Waiting || c.Misses != 2 {
		t.Errorf("conversation waiting %v misses %d, want the handoff after two misses", c.Waiting, c.Misses)
	}

	page, err := f.store.LatestMessages(f.ctx, conv, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []domain.Tokens
	for _, m := range page.Messages {
		got = append(got, m.Tokens)
	}
	want := []domain.Tokens{{}, {Prompt: 100, Completion: 10}, {}, {Prompt: 200, Completion: 20}, {}, {Prompt: 300, Completion: 30}}
	if len(got) != len(want) {
		t.Fatalf("tokens per message %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("message %d (%s) tokens %+v, want %+v", i, page.Messages[i].Role, got[i], want[i])
		}
	}
	total := domain.Tokens{Prompt: 600, Completion: 60}
	if sum, err := f.store.ConversationTokens(f.ctx, conv); err != nil || sum != total {
		t.Errorf("ConversationTokens = %+v, %v; want %+v", sum, err, total)
	}
	if u, err := f.store.Usage(f.ctx, f.account.ID, "2025-03"); err != nil || u.Tokens != total {
		t.Errorf("Usage = %+v, %v; want tokens %+v", u, err, total)
	}
}

// The instant path (message and reply in one write) stores a reply's usage
// too; the built-in knowledge-base agent's replies cost nothing.
func TestChatTokenUsageInstant(t *testing.T) {
	f := newFixture(t, fixtureOptions{instant: true, replies: []agent.Reply{{Text: "Hi", Usage: domain.Tokens{Prompt: 42, Completion: 4}}}})
	conv := f.init()
	if _, err := f.chat(conv, "hello"); err != nil {
		t.Fatal(err)
	}
	if sum, err := f.store.ConversationTokens(f.ctx, conv); err != nil || sum != (domain.Tokens{Prompt: 42, Completion: 4}) {
		t.Errorf("ConversationTokens = %+v, %v", sum, err)
	}

	kb := newFixture(t, fixtureOptions{knowledgeBase: true, knowledge: []domain.KnowledgeEntry{{Question: "When do you open?", Answer: "At 9."}}})
	conv = kb.init()
	if res, err := kb.chat(conv, "when do you open?"); err != nil || res.Response != "At 9." {
		t.Fatalf("Chat = %+v, %v", res, err)
	}
	if sum, err := kb.store.ConversationTokens(kb.ctx, conv); err != nil || !sum.IsZero() {
		t.Errorf("knowledge-base ConversationTokens = %+v, %v; want zero", sum, err)
	}
}
