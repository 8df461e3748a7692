package chat

import (
	"context"

	"parley/internal/domain"
)

// agent resolves a widget key to its agent and applies the agent's origin
// rule to the request's Origin: every widget call (init, chat, poll) goes
// through here, so a page on a refused site gets nothing from any of them.
// The agent is loaded anyway; the check adds a few string comparisons.
func (s *Service) agent(ctx context.Context, key, origin string) (domain.Agent, error) {
	ag, err := s.store.AgentByKey(ctx, key)
	if err != nil {
		return domain.Agent{}, err
	}
	if err := ag.Config.CheckOrigin(origin); err != nil {
		return domain.Agent{}, err
	}
	return ag, nil
}
