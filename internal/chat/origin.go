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

// OriginRecorder is told the Origin of each init and chat, allowed or
// refused (origins.Recorder); it must not write to the store on every
// call.
type OriginRecorder interface {
	Seen(ctx context.Context, agentID, origin string)
}

// seenAgent is agent for init and chat, which also tell the recorder the
// page's origin, before the check so refused sites are counted too. Polls
// are not counted: they follow an init from the same page.
func (s *Service) seenAgent(ctx context.Context, key, origin string) (domain.Agent, error) {
	if s.origins == nil {
		return s.agent(ctx, key, origin)
	}
	ag, err := s.store.AgentByKey(ctx, key)
	if err != nil {
		return domain.Agent{}, err
	}
	s.origins.Seen(ctx, ag.ID, origin)
	if err := ag.Config.CheckOrigin(origin); err != nil {
		return domain.Agent{}, err
	}
	return ag, nil
}
