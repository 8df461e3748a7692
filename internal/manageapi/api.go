// Package manageapi serves the management API for account owners under
// /api/v1: agents, widget keys, conversations, operator actions and usage.
// Every handler runs behind Auth and sees only its own account's data;
// another account's resources answer 404.
package manageapi

import (
	"context"

	"parley/internal/chat"
	"parley/internal/domain"
	"parley/internal/store"
)

// KnowledgeInvalidator is told when an agent's knowledge changes, so a
// cached index is rebuilt (the knowledge-base agent implements it).
type KnowledgeInvalidator interface{ Invalidate(agentID string) }

type API struct {
	store       store.Store
	chat        *chat.Service
	invalidator KnowledgeInvalidator
	checkConfig ConfigChecker
	bounds      domain.Bounds // knowledge per agent, agents per account
}

// ConfigChecker says whether an agent config may be saved beyond its
// shape: the LLM endpoint it names (llm.Responder.CheckAgentConfig). Its
// error's text is the 400's.
type ConfigChecker func(ctx context.Context, config domain.AgentConfig) error

func New(s store.Store, c *chat.Service, inv KnowledgeInvalidator, b domain.Bounds) *API {
	return &API{store: s, chat: c, invalidator: inv, bounds: b}
}

// CheckConfigs makes agent creation and updates refuse, with a 400, the
// configs check refuses; without it only the config's shape is checked.
func (a *API) CheckConfigs(check ConfigChecker) *API {
	a.checkConfig = check
	return a
}
