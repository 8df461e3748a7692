package main

import (
	"context"
	"log/slog"
	"time"

	"parley/internal/agent"
	"parley/internal/config"
	"parley/internal/domain"
	"parley/internal/embed"
	"parley/internal/metrics"
	"parley/internal/outbound"
	"parley/internal/store"
)

// newHybrid sets up embeddings and hybrid retrieval (docs/agent.md,
// "Hybrid retrieval"). With no embeddings model, instance-wide or in an
// agent's config, it changes nothing: retrieval stays lexical, no job is
// queued, no metric counts.
func newHybrid(cfg config.Config, kb *agent.KB, vs store.Vectors, guard *outbound.Guard, reg *metrics.Registry, log *slog.Logger,
	enqueue func(ctx context.Context, accountID, agentID string) error) (*embed.Embedder, *agent.Hybrid) {
	embedder := embed.New(embed.Config{
		BaseURL: cfg.Embed.BaseURL, APIKey: cfg.Embed.APIKey, Model: cfg.Embed.Model,
		NoAgentEndpoints: !cfg.LLM.AgentEndpoints,
	}, guard)
	fallbacks := reg.Counter("parley_retrieval_lexical_fallbacks_total",
		"LLM retrievals that were lexical only although the agent has embeddings, by reason: backend (the message could not be embedded) or missing (no vectors yet).",
		"reason")
	h := agent.NewHybrid(agent.HybridOptions{
		KB: kb, Embedder: embedder, Vectors: vs, Enqueue: enqueue, Logger: log,
		OnFallback: func(reason string) { fallbacks.WithLabelValues(reason).Inc() },
	})
	return embedder, h
}

// sweepEmbeddings queues, every minute until ctx ends, the agents whose
// vectors messages found missing.
func sweepEmbeddings(ctx context.Context, h *agent.Hybrid) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			h.Sweep(ctx)
		}
	}
}

// checkEndpoints is agentadmin's endpoint check for both of an agent's
// own endpoints, the LLM's and the embeddings': the first refusal is the
// 400, naming its key.
func checkEndpoints(checks ...func(context.Context, domain.AgentConfig) error) func(context.Context, domain.AgentConfig) error {
	return func(ctx context.Context, c domain.AgentConfig) error {
		for _, check := range checks {
			if err := check(ctx, c); err != nil {
				return err
			}
		}
		return nil
	}
}
