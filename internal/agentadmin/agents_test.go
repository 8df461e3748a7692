package agentadmin

import (
	"errors"
	"strings"
	"testing"

	"parley/internal/domain"
	"parley/internal/store"
)

// wantInvalid checks err is a 400 for the API with exactly msg.
func wantInvalid(t *testing.T, what string, err error, msg string) {
	t.Helper()
	var invalid *domain.InvalidError
	if !errors.As(err, &invalid) || invalid.Msg != msg {
		t.Errorf("%s: error %v, want a *domain.InvalidError %q", what, err, msg)
	}
}

func TestAgentName(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st, Options{})
		ctx := t.Context()
		longest := strings.Repeat("ș", MaxName) // characters, not bytes
		for _, name := range []string{"", "   ", "\t\n", longest + "ș", " " + longest + "x "} {
			_, err := f.svc.CreateAgent(ctx, f.account, NewAgent{Name: name})
			if !errors.Is(err, ErrName) {
				t.Errorf("CreateAgent(%q): %v, want ErrName", name, err)
			}
			wantInvalid(t, "CreateAgent", err, "chatbot_name must be 1 to 100 characters")
		}
		if agents, _ := f.svc.Agents(ctx, f.account); len(agents) != 0 {
			t.Fatalf("refused names created %d agents", len(agents))
		}
		for name, want := range map[string]string{"  Helper \n": "Helper", longest: longest, " " + longest + " ": longest, "x": "x"} {
			ag, err := f.svc.CreateAgent(ctx, f.account, NewAgent{Name: name})
			if err != nil || ag.ChatbotName != want {
				t.Errorf("CreateAgent(%q) = %q, %v; want %q", name, ag.ChatbotName, err, want)
			}
		}

		// The same rule on rename; a refused one changes nothing and
		// tells nobody.
		ag := f.agent("Before")
		for _, name := range []string{" ", longest + "ș"} {
			_, err := f.svc.UpdateAgent(ctx, f.account, ag.ID, AgentChange{Name: &name})
			if !errors.Is(err, ErrName) {
				t.Errorf("rename to %q: %v, want ErrName", name, err)
			}
		}
		if got, _ := f.svc.Agent(ctx, f.account, ag.ID); got.ChatbotName != "Before" || len(f.inv.told()) != 0 {
			t.Fatalf("after refused renames: %q, invalidated %v", got.ChatbotName, f.inv.told())
		}
		name := "  After  "
		got, err := f.svc.UpdateAgent(ctx, f.account, ag.ID, AgentChange{Name: &name})
		if err != nil || got.ChatbotName != "After" || string(got.Config.JSON()) != "{}" {
			t.Fatalf("rename: %+v, %v", got, err)
		}
		// A bad name is refused before the agent is looked for.
		_, err = f.svc.UpdateAgent(ctx, f.account, "ag_missing", AgentChange{Name: new(" ")})
		if !errors.Is(err, ErrName) {
			t.Errorf("bad name for a missing agent: %v, want ErrName", err)
		}
	})
}

func TestAgentCap(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st, Options{Bounds: domain.Bounds{MaxAgents: 2}})
		ctx := t.Context()
		f.agent("One")
		f.agent("Two")
		_, err := f.svc.CreateAgent(ctx, f.account, NewAgent{Name: "Three"})
		var limit *domain.AgentLimitError
		if !errors.As(err, &limit) || limit.Max != 2 {
			t.Fatalf("third agent: %v, want an *domain.AgentLimitError of 2", err)
		}
		if agents, _ := f.svc.Agents(ctx, f.account); len(agents) != 2 {
			t.Errorf("the account has %d agents, want 2", len(agents))
		}
		// The cap is per account.
		other := newAccount(t, st)
		if _, err := f.svc.CreateAgent(ctx, other, NewAgent{Name: "One"}); err != nil {
			t.Errorf("another account's first agent: %v", err)
		}
	})
}

// A new agent has one active key, the one to embed, and its knowledge
// passes the same checks and bounds as later additions.
func TestCreateAgent(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st, Options{Bounds: domain.Bounds{Knowledge: domain.KnowledgeLimits{MaxItems: 2, MaxChars: 1000}}})
		ctx := t.Context()
		ag, err := f.svc.CreateAgent(ctx, f.account, NewAgent{Name: "Helper",
			Knowledge: []domain.KnowledgeEntry{{Question: " Hours? ", Answer: "9 to 5", Lang: " EN "}}})
		if err != nil {
			t.Fatal(err)
		}
		if string(ag.Config.JSON()) != "{}" || ag.AccountID != f.account {
			t.Errorf("CreateAgent = %+v", ag)
		}
		keys := f.keys(ag.ID)
		if len(keys) != 1 || !keys[0].Active || EmbedKey(keys) != keys[0].Key || !strings.HasPrefix(keys[0].Key, "wk_") {
			t.Errorf("a new agent's keys: %+v", keys)
		}
		kb, err := f.svc.Knowledge(ctx, f.account, ag.ID)
		if err != nil || len(kb) != 1 || kb[0].Question != "Hours?" || kb[0].Lang != "en" || kb[0].Kind != domain.KindQA {
			t.Errorf("knowledge created with the agent: %+v, %v", kb, err)
		}

		_, err = f.svc.CreateAgent(ctx, f.account, NewAgent{Name: "Bad", Knowledge: []domain.KnowledgeEntry{{Question: "q"}}})
		wantProblem(t, "an entry without an answer", err, domain.KnowledgeQAMissing)
		three := []domain.KnowledgeEntry{{Question: "a", Answer: "b"}, {Question: "c", Answer: "d"}, {Question: "e", Answer: "f"}}
		_, err = f.svc.CreateAgent(ctx, f.account, NewAgent{Name: "Big", Knowledge: three})
		wantLimit(t, "three entries where two fit", err, domain.KnowledgeTooMany)
		if agents, _ := f.svc.Agents(ctx, f.account); len(agents) != 1 {
			t.Errorf("refused creations left %d agents, want 1", len(agents))
		}
	})
}

// Every update bumps the agent's version, the one its knowledge index is
// cached under: the cache is told, once, and only when the update is made.
func TestUpdateAgentInvalidates(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st, Options{Bounds: domain.Bounds{Knowledge: domain.KnowledgeLimits{MaxItems: 1, MaxChars: 1000}}})
		ctx := t.Context()
		ag := f.agent("Helper")
		kb := []domain.KnowledgeEntry{{Question: "Where?", Answer: "Here."}}
		if _, err := f.svc.UpdateAgent(ctx, f.account, ag.ID, AgentChange{Knowledge: &kb}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.UpdateAgent(ctx, f.account, ag.ID, AgentChange{Config: []byte(`{"greeting":"Hi"}`)}); err != nil {
			t.Fatal(err)
		}
		if told := f.inv.told(); len(told) != 2 || told[0] != ag.ID || told[1] != ag.ID {
			t.Fatalf("invalidations after two updates: %v", told)
		}

		two := append(kb, domain.KnowledgeEntry{Question: "When?", Answer: "Now."})
		_, err := f.svc.UpdateAgent(ctx, f.account, ag.ID, AgentChange{Knowledge: &two})
		wantLimit(t, "two entries where one fits", err, domain.KnowledgeTooMany)
		bad := []domain.KnowledgeEntry{{Question: "q", Answer: "a", Lang: "de"}}
		_, err = f.svc.UpdateAgent(ctx, f.account, ag.ID, AgentChange{Knowledge: &bad})
		wantProblem(t, "a language Parley does not speak", err, domain.KnowledgeBadLang)

		// Another account's agent is missing, whatever the change.
		other := newAccount(t, st)
		name := "Hijacked"
		for what, c := range map[string]AgentChange{"name": {Name: &name}, "config": {Config: []byte(`{}`)}, "knowledge": {Knowledge: &kb}} {
			if _, err := f.svc.UpdateAgent(ctx, other, ag.ID, c); !errors.Is(err, domain.ErrNotFound) {
				t.Errorf("another account changes the %s: %v, want ErrNotFound", what, err)
			}
		}
		if _, err := f.svc.Agent(ctx, other, ag.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("another account reads the agent: %v", err)
		}
		if told := f.inv.told(); len(told) != 2 {
			t.Errorf("refused updates told the cache: %v", told)
		}
		if got, _ := f.svc.Agent(ctx, f.account, ag.ID); got.ChatbotName != "Helper" || string(got.Config.JSON()) != `{"greeting":"Hi"}` {
			t.Errorf("after refused updates: %+v", got)
		}
	})
}
