package storetest

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"parley/internal/domain"
	"parley/internal/store"
)

// wantLimit fails unless err is a knowledge bound's refusal of problem p.
func wantLimit(t *testing.T, what string, err error, p domain.KnowledgeProblem) {
	t.Helper()
	var le *domain.KnowledgeLimitError
	if !errors.As(err, &le) || le.Problem != p {
		t.Fatalf("%s: error %v, want the %s bound's", what, err, p)
	}
}

// chars is a text of n characters of two bytes each: bounds count
// characters, not bytes.
func chars(n int) string { return strings.Repeat("ș", n) }

// An agent's knowledge stays within its bounds on every path that can
// grow it, counted in characters; a refused change changes nothing (not
// even the version), and a change that does not grow the knowledge is
// never refused, even past bounds lowered since.
func testKnowledgeLimits(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	l := domain.KnowledgeLimits{MaxItems: 3, MaxChars: 100}
	version := func() domain.Agent {
		a, err := s.Agent(ctx, f.account.ID, f.agent.ID)
		noErr(t, "Agent", err)
		return a
	}
	add := func(text string) (domain.KnowledgeEntry, error) {
		return s.AddKnowledge(ctx, f.account.ID, f.agent.ID, domain.KnowledgeEntry{Kind: domain.KindDocument, Title: "T", Text: text}, l)
	}
	first, err := add(chars(50)) // 51 characters with the title
	noErr(t, "AddKnowledge", err)
	_, err = add(chars(48)) // 100: at the bound
	noErr(t, "AddKnowledge to the character bound", err)
	v := version()
	_, err = add("x") // 102
	wantLimit(t, "AddKnowledge past the character bound", err, domain.KnowledgeTooLarge)
	if !version().UpdatedAt.Equal(v.UpdatedAt) {
		t.Fatal("a refused AddKnowledge bumped the version")
	}

	// Editing: growing past the bound is refused, shrinking is not.
	first.Text = chars(51)
	_, err = s.UpdateKnowledge(ctx, f.account.ID, f.agent.ID, first, l)
	wantLimit(t, "UpdateKnowledge past the character bound", err, domain.KnowledgeTooLarge)
	first.Text = chars(10)
	_, err = s.UpdateKnowledge(ctx, f.account.ID, f.agent.ID, first, l)
	noErr(t, "UpdateKnowledge shrinking", err)
	_, err = s.UpdateKnowledge(ctx, f.account.ID, f.agent.ID, domain.KnowledgeEntry{ID: "kb_missing", Question: "q", Answer: "a"}, l)
	wantErr(t, "UpdateKnowledge of a missing item", err, domain.ErrNotFound)

	_, err = s.AddKnowledge(ctx, f.account.ID, f.agent.ID, domain.KnowledgeEntry{Question: "q", Answer: "a"}, l) // 3 items
	noErr(t, "AddKnowledge to the item bound", err)
	_, err = s.AddKnowledge(ctx, f.account.ID, f.agent.ID, domain.KnowledgeEntry{Question: "q", Answer: "a"}, l)
	wantLimit(t, "AddKnowledge past the item bound", err, domain.KnowledgeTooMany)
	if kb, _ := s.Knowledge(ctx, f.agent.ID); len(kb) != 3 {
		t.Fatalf("%d items after refused additions, want 3", len(kb))
	}

	// The whole list, as PATCH agent sends it.
	four := []domain.KnowledgeEntry{{Question: "a", Answer: "1"}, {Question: "b", Answer: "2"}, {Question: "c", Answer: "3"}, {Question: "d", Answer: "4"}}
	_, err = s.UpdateAgent(ctx, f.account.ID, f.agent.ID, store.AgentPatch{Knowledge: &four, KnowledgeLimits: l})
	wantLimit(t, "UpdateAgent with too many items", err, domain.KnowledgeTooMany)
	long := []domain.KnowledgeEntry{{Question: "q", Answer: chars(100)}}
	_, err = s.UpdateAgent(ctx, f.account.ID, f.agent.ID, store.AgentPatch{Knowledge: &long, KnowledgeLimits: l})
	wantLimit(t, "UpdateAgent with too many characters", err, domain.KnowledgeTooLarge)
	if kb, _ := s.Knowledge(ctx, f.agent.ID); len(kb) != 3 {
		t.Fatalf("a refused UpdateAgent changed the knowledge: %d items", len(kb))
	}
	two := four[:2]
	_, err = s.UpdateAgent(ctx, f.account.ID, f.agent.ID, store.AgentPatch{Knowledge: &two, KnowledgeLimits: l})
	noErr(t, "UpdateAgent within the bounds", err)

	// Bounds lowered below what an agent has: it may still shrink, or be
	// replaced by less, but not grow.
	lower := domain.KnowledgeLimits{MaxItems: 1, MaxChars: 2}
	one := four[:1]
	_, err = s.UpdateAgent(ctx, f.account.ID, f.agent.ID, store.AgentPatch{Knowledge: &one, KnowledgeLimits: lower})
	noErr(t, "UpdateAgent shrinking past lowered bounds", err)
	kb, _ := s.Knowledge(ctx, f.agent.ID)
	kb[0].Answer = "2" // as long as it was
	_, err = s.UpdateKnowledge(ctx, f.account.ID, f.agent.ID, kb[0], domain.KnowledgeLimits{MaxChars: 1})
	noErr(t, "UpdateKnowledge keeping the size past a lowered bound", err)
	noErr(t, "DeleteKnowledge", s.DeleteKnowledge(ctx, f.account.ID, f.agent.ID, kb[0].ID))

	// An agent created with its knowledge.
	_, err = s.CreateAgent(ctx, store.NewAgent{AccountID: f.account.ID, ChatbotName: "Big", Knowledge: four, KnowledgeLimits: l})
	wantLimit(t, "CreateAgent with too many items", err, domain.KnowledgeTooMany)
	_, err = s.CreateAgent(ctx, store.NewAgent{AccountID: f.account.ID, ChatbotName: "Big", Knowledge: long, KnowledgeLimits: l})
	wantLimit(t, "CreateAgent with too many characters", err, domain.KnowledgeTooLarge)
	if agents, _ := s.Agents(ctx, f.account.ID); len(agents) != 1 {
		t.Fatalf("refused creations left %d agents, want 1", len(agents))
	}
	_, err = s.CreateAgent(ctx, store.NewAgent{AccountID: f.account.ID, ChatbotName: "Fits", Knowledge: two, KnowledgeLimits: l})
	noErr(t, "CreateAgent within the bounds", err)
}

// Additions that race for the last room: exactly as many pass as fit,
// whichever bound is the tighter.
func testKnowledgeLimitsConcurrent(t *testing.T, s store.Store) {
	ctx := t.Context()
	for _, tt := range []struct {
		name  string
		l     domain.KnowledgeLimits
		fits  int
		bound domain.KnowledgeProblem
	}{
		{"items", domain.KnowledgeLimits{MaxItems: 5, MaxChars: 1 << 20}, 5, domain.KnowledgeTooMany},
		{"characters", domain.KnowledgeLimits{MaxItems: 1000, MaxChars: 7*20 + 10}, 7, domain.KnowledgeTooLarge},
	} {
		f := setup(t, s, many)
		const callers = 24
		var wg sync.WaitGroup
		var mu sync.Mutex
		ok, refused := 0, 0
		var other error
		start := make(chan struct{})
		for range callers {
			wg.Go(func() {
				<-start
				// 20 characters each: question 10, answer 10.
				_, err := s.AddKnowledge(ctx, f.account.ID, f.agent.ID, domain.KnowledgeEntry{Question: chars(10), Answer: chars(10)}, tt.l)
				var le *domain.KnowledgeLimitError
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					ok++
				case errors.As(err, &le) && le.Problem == tt.bound:
					refused++
				default:
					other = err
				}
			})
		}
		close(start)
		wg.Wait()
		kb, err := s.Knowledge(ctx, f.agent.ID)
		noErr(t, "Knowledge", err)
		if ok != tt.fits || refused != callers-tt.fits || other != nil || len(kb) != tt.fits {
			t.Errorf("%s: %d added, %d refused (other error %v), %d stored; want %d, %d, nil, %d",
				tt.name, ok, refused, other, len(kb), tt.fits, callers-tt.fits, tt.fits)
		}
	}
}

// An account's agents stay within MaxAgents, also when created at once.
func testAgentLimit(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many) // one agent already
	const callers, max = 12, 4
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, refused := 0, 0
	var other error
	start := make(chan struct{})
	for range callers {
		wg.Go(func() {
			<-start
			_, err := s.CreateAgent(ctx, store.NewAgent{AccountID: f.account.ID, ChatbotName: "Bot", MaxAgents: max})
			var le *domain.AgentLimitError
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
			case errors.As(err, &le) && le.Max == max:
				refused++
			default:
				other = err
			}
		})
	}
	close(start)
	wg.Wait()
	agents, err := s.Agents(ctx, f.account.ID)
	noErr(t, "Agents", err)
	if ok != max-1 || refused != callers-max+1 || other != nil || len(agents) != max {
		t.Errorf("%d created, %d refused (other error %v), %d agents; want %d, %d, nil, %d",
			ok, refused, other, len(agents), max-1, callers-max+1, max)
	}
	// Another account has its own count.
	g := setup(t, s, many)
	_, err = s.CreateAgent(ctx, store.NewAgent{AccountID: g.account.ID, ChatbotName: "Bot", MaxAgents: max})
	noErr(t, "CreateAgent in another account", err)
	_, err = s.CreateAgent(ctx, store.NewAgent{AccountID: "acc_missing", ChatbotName: "Bot", MaxAgents: max})
	wantErr(t, "CreateAgent for a missing account", err, domain.ErrNotFound)
}
