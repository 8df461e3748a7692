package sqlite

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"parley/internal/domain"
	"parley/internal/store"
)

// The key cache must never answer with what a finished write changed:
// every change to a key, an agent or its knowledge shows in the next
// AgentByKey.
func TestAgentByKeySeesEveryChange(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := openTemp(t)
	acc, err := s.CreateAccount(ctx, store.NewAccount{Email: "k@example.com", Name: "K", Limits: domain.DefaultLimits})
	if err != nil {
		t.Fatal(err)
	}
	ag, err := s.CreateAgent(ctx, store.NewAgent{AccountID: acc.ID, ChatbotName: "Bot", Config: json.RawMessage(`{"a":1}`), Key: "wk_cached"})
	if err != nil {
		t.Fatal(err)
	}
	byKey := func(key string) (domain.Agent, error) {
		t.Helper()
		// Twice: the first may fill the cache, the second reads from it.
		if _, err := s.AgentByKey(ctx, key); err != nil {
			return domain.Agent{}, err
		}
		return s.AgentByKey(ctx, key)
	}
	got, err := byKey("wk_cached")
	if err != nil || got.ID != ag.ID || string(got.Config.JSON()) != `{"a":1}` {
		t.Fatalf("AgentByKey = %+v, %v", got, err)
	}

	// A caller changing its copy of the config does not change the cache
	// (the config's maps are shared and read-only: domain.AgentConfig).
	got.Config.Greeting, got.Config.Extra = "X", nil
	if got, _ := byKey("wk_cached"); string(got.Config.JSON()) != `{"a":1}` {
		t.Fatalf("the cached config changed with a caller's copy: %s", got.Config.JSON())
	}

	// Deactivated: refused at once; reactivated: accepted at once.
	if _, err := s.SetKeyActive(ctx, acc.ID, "wk_cached", false); err != nil {
		t.Fatal(err)
	}
	if _, err := byKey("wk_cached"); !errors.Is(err, domain.ErrKeyInvalid) {
		t.Fatalf("deactivated key: err = %v, want ErrKeyInvalid", err)
	}
	if _, err := s.SetKeyActive(ctx, acc.ID, "wk_cached", true); err != nil {
		t.Fatal(err)
	}
	if _, err := byKey("wk_cached"); err != nil {
		t.Fatalf("reactivated key: %v", err)
	}

	// A new key works at once (misses are never cached).
	if _, err := byKey("wk_later"); !errors.Is(err, domain.ErrKeyInvalid) {
		t.Fatalf("unknown key: err = %v", err)
	}
	if _, err := s.CreateKey(ctx, acc.ID, ag.ID, "wk_later"); err != nil {
		t.Fatal(err)
	}
	if got, err := byKey("wk_later"); err != nil || got.ID != ag.ID {
		t.Fatalf("new key: %+v, %v", got, err)
	}

	// The agent's name and config.
	name := "Renamed"
	if _, err := s.UpdateAgent(ctx, acc.ID, ag.ID, store.AgentPatch{ChatbotName: &name, Config: json.RawMessage(`{"b":2}`)}); err != nil {
		t.Fatal(err)
	}
	got, err = byKey("wk_cached")
	if err != nil || got.ChatbotName != "Renamed" || string(got.Config.JSON()) != `{"b":2}` {
		t.Fatalf("after UpdateAgent: %+v, %v", got, err)
	}

	// Knowledge changes move UpdatedAt, the knowledge index's version.
	before := got.UpdatedAt
	e, err := s.AddKnowledge(ctx, acc.ID, ag.ID, domain.KnowledgeEntry{Question: "q", Answer: "a"}, domain.KnowledgeLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := byKey("wk_cached"); !got.UpdatedAt.After(before) {
		t.Fatalf("AddKnowledge: UpdatedAt %v not after %v", got.UpdatedAt, before)
	}
	got, _ = byKey("wk_cached")
	before = got.UpdatedAt
	e.Answer = "b"
	if _, err := s.UpdateKnowledge(ctx, acc.ID, ag.ID, e, domain.KnowledgeLimits{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := byKey("wk_cached"); !got.UpdatedAt.After(before) {
		t.Fatalf("UpdateKnowledge: UpdatedAt %v not after %v", got.UpdatedAt, before)
	}
	got, _ = byKey("wk_cached")
	before = got.UpdatedAt
	if err := s.DeleteKnowledge(ctx, acc.ID, ag.ID, e.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := byKey("wk_cached"); !got.UpdatedAt.After(before) {
		t.Fatalf("DeleteKnowledge: UpdatedAt %v not after %v", got.UpdatedAt, before)
	}
}

// A read that started before an invalidation must not put what it read
// into the cache after it: it may be the value the write just replaced.
// The invalidation goes the way a write's does, through caches.apply.
func TestKeyCacheDropsReadsOlderThanAnInvalidation(t *testing.T) {
	t.Parallel()
	c := newCaches()
	forgetAgentsCommitted := func() {
		c.pending = append(c.pending, cacheEvent{what: forgetAgents})
		c.apply(true)
	}
	_, r, ok := c.keys.get("wk_x")
	if ok {
		t.Fatal("empty cache hit")
	}
	forgetAgentsCommitted() // a write finished while the read was under way
	c.keys.done("wk_x", r, domain.Agent{ID: "ag_old"}, true)
	if _, ok := c.keys.peek("wk_x"); ok {
		t.Fatal("a read older than the invalidation was cached")
	}
	_, r, _ = c.keys.get("wk_x")
	c.keys.done("wk_x", r, domain.Agent{ID: "ag_new"}, true)
	if a, _, ok := c.keys.get("wk_x"); !ok || a.ID != "ag_new" {
		t.Fatalf("a current read was not cached: %+v, %v", a, ok)
	}
	forgetAgentsCommitted()
	if _, ok := c.keys.peek("wk_x"); ok {
		t.Fatal("invalidate kept an entry")
	}
	// A miss (an unknown or inactive key) is not cached, and leaves no
	// read behind.
	_, r, _ = c.keys.get("wk_unknown")
	c.keys.done("wk_unknown", r, domain.Agent{}, false)
	if _, ok := c.keys.peek("wk_unknown"); ok || len(c.keys.reading) != 0 {
		t.Fatalf("a miss was cached (%v) or left %d reads in flight", ok, len(c.keys.reading))
	}
}

// SQLite re-prepares a statement with a bare "LIMIT ?" on every run (see
// limitArg); the store's SQL must not contain one.
func TestNoBareLimitParameter(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	bare := regexp.MustCompile(`(?i)\bLIMIT\s+\?`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if bare.MatchString(line) && !strings.HasPrefix(strings.TrimSpace(line), "//") {
				t.Errorf("%s:%d: a bare LIMIT ? (use \"LIMIT \"+limitArg): %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}
