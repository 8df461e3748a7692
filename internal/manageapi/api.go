// Package manageapi serves the management API for account owners under
// /api/v1: agents, widget keys, conversations, operator actions and usage.
// Every handler runs behind Auth and sees only its own account's data;
// another account's resources answer 404.
package manageapi

import (
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
	bounds      domain.Bounds // knowledge per agent, agents per account
}

func New(s store.Store, c *chat.Service, inv KnowledgeInvalidator, b domain.Bounds) *API {
	return &API{store: s, chat: c, invalidator: inv, bounds: b}
}
