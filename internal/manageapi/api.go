// Package manageapi serves the management API for account owners under
// /api/v1: agents, widget keys, conversations, operator actions and usage.
// Every handler runs behind Auth and sees only its own account's data;
// another account's resources answer 404.
package manageapi

import (
	"parley/internal/agentadmin"
	"parley/internal/chat"
	"parley/internal/sources"
	"parley/internal/store"
	"parley/internal/webhooks"
)

// Store is what the API reads from the store itself: the account behind
// a token, conversations, their messages and usage. Agents, keys and
// knowledge go through agentadmin, chat writes through chat.
type Store interface {
	store.APITokens
	store.Conversations
	store.Messages
	store.Usage
	store.Visitors
}

type API struct {
	store    Store
	chat     *chat.Service
	agents   *agentadmin.Service // agents, widget keys and knowledge: their rules
	sources  *sources.Service    // website sources: their rules; nil: the routes answer 404
	webhooks *webhooks.Service   // signed webhooks: their rules; nil: the routes answer 404
}

func New(s Store, c *chat.Service, agents *agentadmin.Service) *API {
	return &API{store: s, chat: c, agents: agents}
}

// WithSources serves the agents' website sources through svc.
func (a *API) WithSources(svc *sources.Service) *API {
	a.sources = svc
	return a
}
