package llm

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"parley/internal/agent"
	"parley/internal/domain"
)

func msg(role domain.Role, text string) domain.Message {
	return domain.Message{Role: role, Text: text}
}

func TestRequestSent(t *testing.T) {
	srv := newFakeServer(t, completion("Da."))
	history := []domain.Message{
		msg(domain.RoleVisitor, "Hello"),
		msg(domain.RoleAI, "Hi! How can I help?"),
		{Role: domain.RoleOperator, Text: "This is Maria from support.", OperatorName: "Maria"},
		msg(domain.RoleVisitor, "Do you ship abroad?"), // the current message
	}
	var gotK int
	deps := Deps{
		Passages: func(_ context.Context, a domain.Agent, text, lang string, k int) ([]agent.Passage, error) {
			if a.ID != "ag1" || text != "Do you ship abroad?" || lang != "ro" {
				t.Errorf("Passages(%q, %q, %q)", a.ID, text, lang)
			}
			gotK = k
			return []agent.Passage{{Text: "We ship to all EU countries."}, {Text: "Shipping takes 3-5 days."}}, nil
		},
		History: func(_ context.Context, id string, limit int) ([]domain.Message, error) {
			if id != "c1" || limit != HistoryMessages {
				t.Errorf("History(%q, %d)", id, limit)
			}
			return history, nil
		},
	}
	r := New(Config{BaseURL: srv.baseURL(), APIKey: "sk-instance", Model: "gpt-test"}, deps)
	req := testRequest()
	req.Lang = "ro"
	req.Agent.Config = domain.DecodeAgentConfig([]byte(`{"instructions": "You are Ana from ShopCo. Be brief."}`))
	if _, err := respond(t, r, req); err != nil {
		t.Fatal(err)
	}

	reqs := srv.requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests", len(reqs))
	}
	got := reqs[0]
	if got.Path != "/v1/chat/completions" || got.Auth != "Bearer sk-instance" || got.Body.Model != "gpt-test" || got.Body.Stream {
		t.Errorf("request = %s %s auth %q model %q stream %v", got.Method, got.Path, got.Auth, got.Body.Model, got.Body.Stream)
	}
	if gotK != 4 {
		t.Errorf("Passages asked for k=%d, want 4", gotK)
	}
	msgs := got.Body.Messages
	if len(msgs) == 0 || msgs[0].Role != "system" {
		t.Fatalf("messages = %+v, want a system message first", msgs)
	}
	for _, want := range []string{
		"You are Ana from ShopCo. Be brief.",
		"We ship to all EU countries.",
		"Shipping takes 3-5 days.",
		"Answer in Romanian.",
		`"quick_replies"`,
	} {
		if !strings.Contains(msgs[0].Content, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, msgs[0].Content)
		}
	}
	wantTurns := []chatMessage{
		{"user", "Hello"},
		{"assistant", "Hi! How can I help?"},
		{"assistant", "(Operator Maria) This is Maria from support."},
		{"user", "Do you ship abroad?"},
	}
	if !slices.Equal(msgs[1:], wantTurns) {
		t.Errorf("turns = %+v, want %+v", msgs[1:], wantTurns)
	}
}

func TestSystemPrompt(t *testing.T) {
	ag := domain.Agent{ChatbotName: "Ana"}
	tests := []struct {
		name         string
		instructions string
		passages     []agent.Passage
		lang         string
		want         []string
		notWant      []string
	}{
		{"english default", "", nil, "en", []string{"You are Ana", "do not know", "[NO_ANSWER]", "Answer in English.", "No knowledge-base passages"}, []string{"PASSAGE"}},
		{"romanian", "", nil, "ro", []string{"Answer in Romanian."}, nil},
		{"russian", "", nil, "ru", []string{"Answer in Russian."}, nil},
		{"unknown language falls back to english", "", nil, "", []string{"Answer in English."}, nil},
		{"owner instructions replace the default, not the rules", "Only talk about shoes.", []agent.Passage{{Text: "Shoes: sizes 36-46."}}, "en",
			[]string{"Only talk about shoes.", "<<<PASSAGE 1\nShoes: sizes 36-46.\nPASSAGE 1>>>", "Answer only from the numbered", "[NO_ANSWER]"},
			[]string{"You are Ana", "No knowledge-base passages"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := systemPrompt(ag, tt.instructions, tt.passages, tt.lang)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("prompt lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("prompt has %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestEarlierTurns(t *testing.T) {
	long := strings.Repeat("x", 40)
	tests := []struct {
		name    string
		history []domain.Message
		current string
		budget  int
		want    []message
	}{
		{"no history", nil, "Hi", 100, []message{}},
		{"only the current message", []domain.Message{msg(domain.RoleVisitor, "Hi")}, "Hi", 100, []message{}},
		{
			"current message compared trimmed",
			[]domain.Message{msg(domain.RoleAI, "Hello"), msg(domain.RoleVisitor, " Hi\n")}, "Hi", 100,
			[]message{{roleAssistant, "Hello"}},
		},
		{
			"last message is not the current one",
			[]domain.Message{msg(domain.RoleVisitor, "Earlier")}, "Hi", 100,
			[]message{{roleUser, "Earlier"}},
		},
		{
			"roles mapped in order",
			[]domain.Message{
				msg(domain.RoleVisitor, "a"), msg(domain.RoleAI, "b"),
				{Role: domain.RoleOperator, Text: "c", OperatorName: "Ion"},
				{Role: domain.RoleOperator, Text: "d"},
				msg(domain.RoleVisitor, "Hi"),
			}, "Hi", 100,
			[]message{{roleUser, "a"}, {roleAssistant, "b"}, {roleAssistant, "(Operator Ion) c"}, {roleAssistant, "(Operator) d"}},
		},
		{
			"trimmed from the oldest side",
			[]domain.Message{msg(domain.RoleVisitor, long), msg(domain.RoleAI, long), msg(domain.RoleVisitor, long), msg(domain.RoleVisitor, "Hi")}, "Hi", 100,
			[]message{{roleAssistant, long}, {roleUser, long}},
		},
		{
			"a message that does not fit ends the history",
			[]domain.Message{msg(domain.RoleVisitor, "short"), msg(domain.RoleAI, strings.Repeat("y", 101)), msg(domain.RoleVisitor, "Hi")}, "Hi", 100,
			[]message{},
		},
		{
			"budget counts characters, not bytes",
			[]domain.Message{msg(domain.RoleAI, strings.Repeat("щ", 10)), msg(domain.RoleVisitor, "Hi")}, "Hi", 10,
			[]message{{roleAssistant, strings.Repeat("щ", 10)}},
		},
		{
			"empty and unknown messages skipped",
			[]domain.Message{msg(domain.RoleAI, "  "), msg("system", "x"), msg(domain.RoleAI, "ok")}, "Hi", 100,
			[]message{{roleAssistant, "ok"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := earlierTurns(tt.history, tt.current, tt.budget)
			if !slices.Equal(got, tt.want) {
				t.Errorf("earlierTurns = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// Budget trimming reaches the wire, and the current message is always
// sent last, even when it alone is over the budget.
func TestHistoryBudgetSent(t *testing.T) {
	srv := newFakeServer(t, completion("ok"))
	old := strings.Repeat("o", 30)
	deps := Deps{History: func(context.Context, string, int) ([]domain.Message, error) {
		return []domain.Message{msg(domain.RoleVisitor, old), msg(domain.RoleAI, "recent answer"), msg(domain.RoleVisitor, "Do you ship abroad?")}, nil
	}}
	r := New(Config{BaseURL: srv.baseURL(), Model: "m", HistoryBudget: 20}, deps)
	if _, err := respond(t, r, testRequest()); err != nil {
		t.Fatal(err)
	}
	got := srv.requests()[0].Body.Messages[1:]
	want := []chatMessage{{"assistant", "recent answer"}, {"user", "Do you ship abroad?"}}
	if !slices.Equal(got, want) {
		t.Errorf("turns = %+v, want %+v", got, want)
	}
}

// Failing knowledge or history lookups do not fail the chat: the model is
// asked with what is left.
func TestDepsFailuresDegrade(t *testing.T) {
	srv := newFakeServer(t, completion("ok"))
	log, logs := testLogger()
	deps := Deps{
		Passages: func(context.Context, domain.Agent, string, string, int) ([]agent.Passage, error) {
			return nil, errors.New("index down")
		},
		History: func(context.Context, string, int) ([]domain.Message, error) { return nil, errors.New("db down") },
		Logger:  log,
	}
	r := New(Config{BaseURL: srv.baseURL(), Model: "m"}, deps)
	if got, err := respond(t, r, testRequest()); err != nil || got.Text != "ok" {
		t.Fatalf("Respond = %+v, %v", got, err)
	}
	msgs := srv.requests()[0].Body.Messages
	if len(msgs) != 2 || msgs[1] != (chatMessage{"user", "Do you ship abroad?"}) {
		t.Errorf("messages = %+v, want system and the visitor's message", msgs)
	}
	if !strings.Contains(msgs[0].Content, "No knowledge-base passages") {
		t.Errorf("system prompt does not say no passages matched:\n%s", msgs[0].Content)
	}
	for _, w := range []string{"index down", "db down"} {
		if !strings.Contains(logs.String(), w) {
			t.Errorf("log lacks %q:\n%s", w, logs.String())
		}
	}
}

func TestNoKeyNoAuthorization(t *testing.T) {
	srv := newFakeServer(t, completion("ok"))
	t.Setenv("OPENAI_API_KEY", "sk-ambient") // must never reach the server
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/nowhere")
	r := New(Config{BaseURL: srv.baseURL(), Model: "llama3.2"}, Deps{})
	if _, err := respond(t, r, agent.Request{Agent: domain.Agent{ID: "ag1"}, Text: "Hi", Lang: "en"}); err != nil {
		t.Fatal(err)
	}
	if auth := srv.requests()[0].Auth; auth != "" {
		t.Errorf("Authorization = %q, want none", auth)
	}
}
