package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"parley/internal/agent"
	"parley/internal/agent/llm"
	"parley/internal/config"
	"parley/internal/domain"
	"parley/internal/embed"
	"parley/internal/embed/embedtest"
	"parley/internal/metrics"
	"parley/internal/outbound"
	"parley/internal/store/sqlite/sqlitetest"
)

// An agent's embeddings endpoint on a private address is refused on save
// with a message naming config.embed.base_url; the LLM's is checked first.
func TestCheckEndpointsBoth(t *testing.T) {
	t.Parallel()
	check := checkEndpoints(llm.New(llm.Config{}, llm.Deps{}).CheckAgentConfig, embed.New(embed.Config{}, nil).CheckAgentConfig)
	ctx := context.Background()
	for cfg, want := range map[string]string{
		`{"embed":{"base_url":"http://127.0.0.1:9/v1","model":"e"}}`:                                      "config.embed.base_url: 127.0.0.1 is a loopback address",
		`{"llm":{"base_url":"http://10.0.0.1/v1"},"embed":{"base_url":"http://127.0.0.1:9/v1"}}`:          "config.llm.base_url: 10.0.0.1 is a private address",
		`{"embed":{"base_url":"https://93.184.216.34/v1"},"llm":{"base_url":"https://93.184.216.34/v1"}}`: "",
	} {
		err := check(ctx, domain.DecodeAgentConfig([]byte(cfg)))
		if (want == "" && err != nil) || (want != "" && (err == nil || !strings.HasPrefix(err.Error(), want))) {
			t.Errorf("%s: %v, want %q", cfg, err, want)
		}
	}
}

// The fallback metric counts, by reason, LLM retrievals that were lexical
// only: vectors missing, then the embeddings backend down.
func TestLexicalFallbacksCounted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, ag := sqlitetest.Agent(t, domain.KnowledgeEntry{Kind: domain.KindQA, Question: "Opening hours", Answer: "9 to 5.", Lang: "en"})
	fake := embedtest.New(t, 16)
	var cfg config.Config
	cfg.Embed = config.Embed{BaseURL: fake.BaseURL(), Model: "e"}
	kb := agent.NewKB(st, agent.KBOptions{})
	t.Cleanup(kb.Stop)
	reg := metrics.NewRegistry()
	_, h := newHybrid(cfg, kb, st, outbound.New(outbound.Options{}), reg, slog.New(slog.DiscardHandler), nil)

	count := func(reason string) string {
		var b strings.Builder
		if _, err := reg.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		prefix := `parley_retrieval_lexical_fallbacks_total{reason="` + reason + `"} `
		for line := range strings.Lines(b.String()) {
			if v, ok := strings.CutPrefix(line, prefix); ok {
				return strings.TrimSpace(v)
			}
		}
		return "absent"
	}
	if _, err := h.Passages(ctx, ag, "opening hours", "en", 4); err != nil {
		t.Fatal(err)
	}
	if got := count("missing"); got != "1" {
		t.Fatalf("missing = %s after a search without vectors, want 1", got)
	}
	if err := h.EmbedAgent(ctx, ag.AccountID, ag.ID); err != nil {
		t.Fatal(err)
	}
	fake.Fail.Store(true)
	if ps, err := h.Passages(ctx, ag, "opening hours", "en", 4); err != nil || len(ps) != 1 {
		t.Fatalf("Passages with the backend down = %v, %v; want the lexical passage", ps, err)
	}
	if got, missing := count("backend"), count("missing"); got != "1" || missing != "1" {
		t.Fatalf("backend = %s, missing = %s; want 1 and 1", got, missing)
	}
}
