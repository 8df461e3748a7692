package agent

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"parley/internal/domain"
)

// Source is where the knowledge-base agent reads an agent's knowledge and
// the version it is at (UpdatedAt): the store.
type Source interface {
	Agent(ctx context.Context, accountID, agentID string) (domain.Agent, error)
	Knowledge(ctx context.Context, agentID string) ([]domain.KnowledgeEntry, error)
}

// StaticKnowledge is a Source that gives every agent the same entries, which
// never change: for tools and tests that answer from a fixed knowledge base.
type StaticKnowledge []domain.KnowledgeEntry

func (s StaticKnowledge) Agent(_ context.Context, accountID, agentID string) (domain.Agent, error) {
	return domain.Agent{ID: agentID, AccountID: accountID}, nil
}

func (s StaticKnowledge) Knowledge(context.Context, string) ([]domain.KnowledgeEntry, error) {
	return s, nil
}

// LogBuilds is an OnBuild that logs failed builds (a warning: messages for
// an agent without an index get errors, others stale answers, until a
// build succeeds) and slow ones (over a second, at info).
func LogBuilds(log *slog.Logger) func(agentID string, analysed int, took time.Duration, err error) {
	return func(agentID string, analysed int, took time.Duration, err error) {
		switch {
		case err != nil && !errors.Is(err, context.Canceled):
			log.Warn("knowledge index build failed", "agent", agentID, "took", took, "err", err)
		case err == nil && took > time.Second:
			log.Info("slow knowledge index build", "agent", agentID, "analysed", analysed, "took", took)
		}
	}
}
