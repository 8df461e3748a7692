// Package insights is what the owner learns from the agent's
// conversations (issue 20, docs/dashboard.md "Insights"): the period's
// outcomes and feedback (Report), the questions the agent could not
// answer grouped by meaning (Gaps) and turned into knowledge (Answer), and
// Q&A entries suggested from the operators' replies (Suggestions). The
// management API and the dashboard both call it.
package insights

import (
	"context"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// Store is what the service reads: the reports' sums and questions, and
// the operators' replies after a question (Messages.MessagesAfter).
type Store interface {
	store.Insights
	MessagesAfter(ctx context.Context, conversationID string, role domain.Role, after int64, limit int) ([]domain.Message, error)
}

// Agents is where an answer becomes knowledge: agentadmin.Service, whose
// rules (checks, bounds, the audit log, the index rebuild) every
// knowledge entry goes through.
type Agents interface {
	Agent(ctx context.Context, accountID, agentID string) (domain.Agent, error)
	Knowledge(ctx context.Context, accountID, agentID string) ([]domain.KnowledgeEntry, error)
	AddKnowledge(ctx context.Context, accountID, agentID string, e domain.KnowledgeEntry) (domain.KnowledgeEntry, error)
}

// Service answers the insights' questions for one account at a time.
type Service struct {
	store  Store
	agents Agents
	now    func() time.Time
}

// New makes the service; now is the clock (nil: time.Now), which sets the
// default period.
func New(s Store, agents Agents, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: s, agents: agents, now: now}
}

// checkAgent refuses an agent of another account (domain.ErrNotFound);
// "" (every agent) passes.
func (s *Service) checkAgent(ctx context.Context, accountID, agentID string) error {
	if agentID == "" {
		return nil
	}
	_, err := s.agents.Agent(ctx, accountID, agentID)
	return err
}
