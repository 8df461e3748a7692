package agent

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/embed"
	"parley/internal/embed/embedtest"
	"parley/internal/store"
)

// hybridKnowledge: the pets entry shares no word with "can I bring my
// puppy?", nor does any synonym or phrase of BM25's lead there (the fake
// model knows a puppy is a dog); the gift card entry shares "bring", so
// BM25 returns it and not the pets entry.
var hybridKnowledge = []domain.KnowledgeEntry{
	{Question: "Animals in the hotel", Answer: "Dogs and cats are welcome in every room.", Lang: "en"},
	{Question: "Back office hours", Answer: "Our back office is open 9 to 5.", Lang: "en"},
	{Question: "Shipping", Answer: "We deliver worldwide in a week.", Lang: "en"},
	{Question: "Gift cards", Answer: "Bring a gift card to any reception desk.", Lang: "en"},
}

type hybridRig struct {
	st       *gatedStore
	kb       *KB
	h        *Hybrid
	fake     *embedtest.Server
	agent    domain.Agent
	mu       sync.Mutex
	fallback map[string]int
	enqueued []string
}

func newHybridRig(t *testing.T, def embed.Config) *hybridRig {
	t.Helper()
	r := &hybridRig{st: newGatedStore(t), fake: embedtest.New(t, 64), fallback: map[string]int{}}
	if def.BaseURL == "" {
		def.BaseURL = r.fake.BaseURL()
	}
	r.kb = newTestKB(t, r.st, KBOptions{})
	r.agent = seedAgent(t, r.st, hybridKnowledge...)
	r.h = NewHybrid(HybridOptions{
		KB: r.kb, Embedder: embed.New(def, nil), Vectors: r.st,
		Enqueue: func(_ context.Context, accountID, agentID string) error {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.enqueued = append(r.enqueued, accountID+"/"+agentID)
			return nil
		},
		OnFallback: func(reason string) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.fallback[reason]++
		},
	})
	return r
}

func (r *hybridRig) fallbacks(reason string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fallback[reason]
}

func texts(ps []Passage) []string {
	var out []string
	for _, p := range ps {
		out = append(out, strings.SplitN(p.Text, "\n", 2)[0])
	}
	return out
}

const puppy = "can I bring my puppy?"

// The fake model puts "puppy" near "dogs" and "animals": hybrid retrieval
// finds the pets entry, which BM25 alone does not return at all.
func TestHybridFindsWhatBM25Misses(t *testing.T) {
	t.Parallel()
	r := newHybridRig(t, embed.Config{Model: "fake-embed"})
	ctx := t.Context()

	lexical, err := r.kb.Passages(ctx, r.agent, puppy, "en", 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range lexical {
		if strings.Contains(p.Text, "Animals") {
			t.Fatalf("BM25 alone found the pets entry: %q; the test shows nothing", texts(lexical))
		}
	}
	if len(lexical) == 0 {
		t.Fatal("BM25 found nothing: the fusion is not tested against a lexical list")
	}

	// Before any embedding: lexical, counted, and the agent is swept.
	got, err := r.h.Passages(ctx, r.agent, puppy, "en", 4)
	if err != nil || !slices.Equal(texts(got), texts(lexical)) || r.fallbacks("missing") != 1 {
		t.Fatalf("without vectors: %q, %v (missing fallbacks %d); want the lexical %q", texts(got), err, r.fallbacks("missing"), texts(lexical))
	}
	r.h.Sweep(ctx)
	if len(r.enqueued) != 1 || r.enqueued[0] != r.agent.AccountID+"/"+r.agent.ID {
		t.Fatalf("swept %v", r.enqueued)
	}

	if err := r.h.EmbedAgent(ctx, r.agent.AccountID, r.agent.ID); err != nil {
		t.Fatal(err)
	}
	got, err = r.h.Passages(ctx, r.agent, puppy, "en", 2)
	// In the top two: the gift card entry, first on both lists' sums
	// (reciprocal-rank fusion rewards being on both), and the pets entry,
	// first by meaning.
	if err != nil || !slices.Contains(texts(got), "Q: Animals in the hotel") || len(got) != 2 {
		t.Fatalf("hybrid: %q, %v; want the pets entry among two", texts(got), err)
	}
	// An exact word still counts: the lexical side keeps "back office" in.
	got, _ = r.h.Passages(ctx, r.agent, "back office", "en", 2)
	if len(got) == 0 || !strings.HasPrefix(got[0].Text, "Q: Back office hours") {
		t.Fatalf("hybrid for an exact phrase: %q", texts(got))
	}
}

// Unchanged text is never embedded twice; changed text and a model change
// are; vectors of text that went are deleted.
func TestEmbedAgentEmbedsOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	r := newHybridRig(t, embed.Config{Model: "m1"})
	ctx := t.Context()
	if err := r.h.EmbedAgent(ctx, r.agent.AccountID, r.agent.ID); err != nil {
		t.Fatal(err)
	}
	if n := len(r.fake.Inputs()); n != len(hybridKnowledge) {
		t.Fatalf("first embedding sent %d texts, want %d", n, len(hybridKnowledge))
	}
	if err := r.h.EmbedAgent(ctx, r.agent.AccountID, r.agent.ID); err != nil {
		t.Fatal(err)
	}
	if n := len(r.fake.Inputs()); n != len(hybridKnowledge) {
		t.Fatalf("an unchanged agent was embedded again: %d texts in all", n)
	}

	items, _ := r.st.Knowledge(ctx, r.agent.ID)
	e := items[2]
	e.Answer = "We deliver worldwide in three days."
	if _, err := r.st.UpdateKnowledge(ctx, r.agent.AccountID, r.agent.ID, e, domain.KnowledgeLimits{}); err != nil {
		t.Fatal(err)
	}
	if err := r.h.EmbedAgent(ctx, r.agent.AccountID, r.agent.ID); err != nil {
		t.Fatal(err)
	}
	in := r.fake.Inputs()
	if len(in) != len(hybridKnowledge)+1 || !strings.Contains(in[len(in)-1], "three days") {
		t.Fatalf("after one edit the texts sent were %q", in)
	}
	stored, _ := r.st.Vectors(ctx, r.agent.ID, "m1")
	if len(stored) != len(hybridKnowledge) {
		t.Fatalf("%d vectors stored, want %d (the old text's deleted)", len(stored), len(hybridKnowledge))
	}

	// Another model: everything again, the old model's vectors deleted.
	if _, err := r.st.UpdateAgent(ctx, r.agent.AccountID, r.agent.ID, store.AgentPatch{Config: []byte(`{"embed":{"model":"m2"}}`)}); err != nil {
		t.Fatal(err)
	}
	if err := r.h.EmbedAgent(ctx, r.agent.AccountID, r.agent.ID); err != nil {
		t.Fatal(err)
	}
	if n := len(r.fake.Inputs()); n != 2*len(hybridKnowledge)+1 {
		t.Fatalf("a model change sent %d texts in all, want %d", n, 2*len(hybridKnowledge)+1)
	}
	old, _ := r.st.Vectors(ctx, r.agent.ID, "m1")
	now, _ := r.st.Vectors(ctx, r.agent.ID, "m2")
	if len(old) != 0 || len(now) != len(hybridKnowledge) {
		t.Fatalf("vectors of m1 %d, m2 %d", len(old), len(now))
	}
}

// With the backend down, chats still get passages (lexical), counted.
func TestHybridBackendDownIsLexical(t *testing.T) {
	t.Parallel()
	r := newHybridRig(t, embed.Config{Model: "m", MaxRetries: -1})
	ctx := t.Context()
	if err := r.h.EmbedAgent(ctx, r.agent.AccountID, r.agent.ID); err != nil {
		t.Fatal(err)
	}
	r.fake.Fail.Store(true)
	lexical, _ := r.kb.Passages(ctx, r.agent, "back office", "en", 4)
	got, err := r.h.Passages(ctx, r.agent, "back office", "en", 4)
	if err != nil || len(got) == 0 || !slices.Equal(texts(got), texts(lexical)) || r.fallbacks("backend") != 1 {
		t.Fatalf("backend down: %q, %v (backend fallbacks %d); want %q", texts(got), err, r.fallbacks("backend"), texts(lexical))
	}
	// The job fails, to be retried by the queue.
	if err := r.h.EmbedAgent(ctx, r.agent.AccountID, "ag_missing"); err == nil {
		t.Fatal("EmbedAgent of a missing agent succeeded")
	}
}

// An agent without an embeddings model: lexical as before, nothing counted,
// nothing called.
func TestHybridWithoutEmbeddingsIsLexical(t *testing.T) {
	t.Parallel()
	r := newHybridRig(t, embed.Config{})
	ctx := t.Context()
	lexical, _ := r.kb.Passages(ctx, r.agent, puppy, "en", 4)
	got, err := r.h.Passages(ctx, r.agent, puppy, "en", 4)
	if err != nil || !slices.Equal(texts(got), texts(lexical)) || r.fallbacks("missing")+r.fallbacks("backend") != 0 {
		t.Fatalf("%q, %v; want %q and no fallback", texts(got), err, texts(lexical))
	}
	if err := r.h.EmbedAgent(ctx, r.agent.AccountID, r.agent.ID); err != nil || r.fake.Requests() != 0 {
		t.Fatalf("EmbedAgent without a model: %v, %d requests", err, r.fake.Requests())
	}
}

// An edit while the job runs is embedded by that job: the queue holds one
// job per agent, the running one included, so no other job comes for it.
func TestEmbedAgentLooksAgainAfterAnEditDuringTheRun(t *testing.T) {
	t.Parallel()
	r := newHybridRig(t, embed.Config{Model: "m"})
	ctx := t.Context()
	release := r.st.hold()
	done := make(chan error, 1)
	go func() { done <- r.h.EmbedAgent(ctx, r.agent.AccountID, r.agent.ID) }()
	<-r.st.loads                                      // the job has read the knowledge
	items, _ := r.st.Store.Knowledge(ctx, r.agent.ID) // not held
	e := items[0]
	e.Answer = "Dogs, cats and parrots are welcome."
	if _, err := r.st.UpdateKnowledge(ctx, r.agent.AccountID, r.agent.ID, e, domain.KnowledgeLimits{}); err != nil {
		t.Fatal(err)
	}
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	in := r.fake.Inputs()
	if !strings.Contains(in[len(in)-1], "parrots") {
		t.Fatalf("the edit was not embedded: %q", in)
	}
	if stored, _ := r.st.Vectors(ctx, r.agent.ID, "m"); len(stored) != len(hybridKnowledge) {
		t.Fatalf("%d vectors stored, want %d", len(stored), len(hybridKnowledge))
	}
}

// A change queues an embedding only for agents with embeddings that this
// instance has answered.
func TestHybridChangedQueuesAgentsWithEmbeddings(t *testing.T) {
	t.Parallel()
	r := newHybridRig(t, embed.Config{Model: "m"})
	r.h.Changed(r.agent.ID) // not answered yet: nothing to queue
	if _, err := r.h.Passages(t.Context(), r.agent, "back office", "en", 2); err != nil {
		t.Fatal(err)
	}
	r.h.Sweep(t.Context()) // the missing vectors were found: one job
	r.h.Changed(r.agent.ID)
	want := r.agent.AccountID + "/" + r.agent.ID
	deadline := time.Now().Add(10 * time.Second)
	for {
		r.mu.Lock()
		got := slices.Clone(r.enqueued)
		r.mu.Unlock()
		if len(got) == 2 && got[0] == want && got[1] == want {
			break
		}
		if len(got) > 2 || time.Now().After(deadline) {
			t.Fatalf("enqueued %v, want %s twice", got, want)
		}
		time.Sleep(5 * time.Millisecond)
	}

	off := newHybridRig(t, embed.Config{})
	if _, err := off.h.Passages(t.Context(), off.agent, "back office", "en", 2); err != nil {
		t.Fatal(err)
	}
	off.h.Changed(off.agent.ID)
	off.h.Sweep(t.Context())
	if len(off.enqueued) != 0 {
		t.Fatalf("an agent without embeddings was queued: %v", off.enqueued)
	}
}

// An agent with nothing to embed is not counted as missing vectors, nor
// queued again and again.
func TestHybridEmptyKnowledgeIsNotMissing(t *testing.T) {
	t.Parallel()
	r := newHybridRig(t, embed.Config{Model: "m"})
	empty := seedAgent(t, r.st)
	if got, err := r.h.Passages(t.Context(), empty, "hello", "en", 4); err != nil || len(got) != 0 {
		t.Fatalf("Passages = %v, %v", got, err)
	}
	r.h.Sweep(t.Context())
	if r.fallbacks("missing") != 0 || len(r.enqueued) != 0 {
		t.Fatalf("missing %d, enqueued %v", r.fallbacks("missing"), r.enqueued)
	}
}
